import Foundation

/// A child process started with posix_spawn, its standard output and error on pipes (or
/// discarded), no other descriptor of this process inherited. Foundation's `Process` is not
/// used: under parallel load it crashed the test process now and then (a bad memmove inside
/// `run()`) and closed descriptors of other tests' servers.
public final class ChildProcess: Sendable {
  /// How a child ended.
  public enum Ending: Equatable, Sendable {
    case exit(Int32)
    case signal(Int32)
  }

  /// The child.
  public let pid: pid_t
  /// Its standard output.
  public let output: Pipe
  /// Its standard error (empty when discarded).
  public let errors: Pipe

  /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments`.
  public init(_ executable: String, _ arguments: [String], discardErrors: Bool = false) throws {
    output = Pipe()
    errors = Pipe()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, output.fileHandleForWriting.fileDescriptor, 1)
    if discardErrors {
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    } else {
      posix_spawn_file_actions_adddup2(&actions, errors.fileHandleForWriting.fileDescriptor, 2)
    }
    // Nothing else of this process's descriptors (other tests' pipes and sockets) goes along.
    Self.closeFrom(&actions, 3)
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let status = posix_spawnp(&child, argv[0]!, &actions, nil, argv, environ)
    output.fileHandleForWriting.closeFile()
    errors.fileHandleForWriting.closeFile()
    guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
    pid = child
  }

  /// SIGTERM, then waits for the exit.
  @discardableResult
  public func stop() -> Ending { kill(SIGTERM) }

  /// Sends `signal`, then waits for the child to end.
  @discardableResult
  public func kill(_ signal: Int32) -> Ending {
    Glibc.kill(pid, signal)
    return wait()
  }

  /// Waits for the child to end.
  public func wait() -> Ending {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7f
    return signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
  }

  /// Reads standard output (blocking) until it holds `marker` or ends; returns what was read.
  public func readOutput(until marker: String) -> String { Self.read(output, until: marker) }

  /// Reads standard error (blocking) until it holds `marker` or ends; returns what was read.
  public func readErrors(until marker: String) -> String { Self.read(errors, until: marker) }

  private static func read(_ pipe: Pipe, until marker: String) -> String {
    var text = ""
    while !text.contains(marker) {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    return text
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: Swift's
  /// Glibc module does not declare it.
  private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
  }
}
