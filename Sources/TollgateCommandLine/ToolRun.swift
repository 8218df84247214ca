import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// How both command-line tools run a command: `--help` prints the usage, `help` or no command
/// too; an unknown command is a usage error; a failure goes to standard error as
/// `tool: message` (with every problem's path for a refused document) and sets the exit status.
public enum ToolRun {
  /// Parses `arguments`, hands the options to `command` and returns the exit status. `command`
  /// returns false for a command it does not know.
  public static func run(
    _ tool: String, usage: String, _ arguments: [String], _ command: (inout Options) async throws -> Bool
  ) async -> Int32 {
    if arguments.contains("--help") || arguments.contains("-h") {
      print(usage)
      return 0
    }
    do {
      var options = try Options(arguments)
      if options.command == ["help"] || options.command.isEmpty {
        print(usage)
      } else if try await !command(&options) {
        throw Failure("unknown command '\(options.command.joined(separator: " "))'\n\n\(usage)")
      }
      return 0
    } catch let failure as Failure {
      FileHandle.standardError.write(Data("\(tool): \(failure.message)\n".utf8))
      return failure.status
    } catch let error as DomainError {
      var message = "\(tool): \(error.message)\n"
      for detail in error.details ?? [] { message += "  \(detail.path): \(detail.message)\n" }
      FileHandle.standardError.write(Data(message.utf8))
      return 1
    } catch {
      FileHandle.standardError.write(Data("\(tool): \(error)\n".utf8))
      return 1
    }
  }
}
