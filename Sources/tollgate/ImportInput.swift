import Foundation
import TollgateCommandLine

/// The file an import reads, a megabyte at a time: a path, `-` for standard input, and a
/// gzipped file (peers deliver their exports as `.csv.gz`) read through the system's `gzip -dc`
/// rather than unpacked to disk first.
final class ImportInput {
  private let handle: FileHandle
  private let gzip: Process?
  private let path: String

  init(_ path: String) throws {
    self.path = path
    if path == "-" {
      handle = FileHandle.standardInput
      gzip = nil
      return
    }
    guard let file = FileHandle(forReadingAtPath: path) else { throw Failure("cannot read \(path)") }
    let magic = (try? file.read(upToCount: 2)) ?? Data()
    guard magic == Data([0x1F, 0x8B]) else {
      try? file.seek(toOffset: 0)
      handle = file
      gzip = nil
      return
    }
    try? file.close()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-dc", "--", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { throw Failure("\(path) is gzipped and /bin/gzip could not be run: \(error)") }
    handle = pipe.fileHandleForReading
    gzip = process
  }

  /// The next chunk, empty at the end.
  func read() throws -> [UInt8]? {
    guard let chunk = try handle.read(upToCount: 1 << 20) else { return nil }
    return [UInt8](chunk)
  }

  /// Throws when the decompressor found the file damaged or cut short (a partial read must not
  /// pass for the whole export).
  func finish() throws {
    guard let gzip else { return }
    gzip.waitUntilExit()
    guard gzip.terminationStatus == 0 else {
      throw Failure(
        "\(path) is damaged or cut short (gzip -dc exited \(gzip.terminationStatus)); import it again once whole: profiles already imported are left as they are"
      )
    }
  }

  func close() {
    if let gzip, gzip.isRunning { gzip.terminate() }
    if path != "-" { try? handle.close() }
  }
}
