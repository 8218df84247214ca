import Foundation
import Synchronization

/// A `tollgate serve --port 0 …` child process, returned once it listens. Started with
/// posix_spawn, not Foundation's `Process`: `Process.run()` crashed the test process now and
/// then (a bad memmove inside it) while other suites ran in parallel.
public final class ServeProcess: Sendable {
  /// How a child ended.
  public enum Ending: Equatable, Sendable {
    case exit(Int32)
    case signal(Int32)
  }

  /// The built debug executable the tests run.
  public static let executable = repositoryRoot.appendingPathComponent(".build/debug/tollgate")

  /// The child.
  public let pid: pid_t
  /// The port it bound.
  public let port: Int
  /// Its standard output (keys and curl commands on a first start).
  public let output: Pipe
  /// Its standard error, after the "listening" line.
  public let errors: Pipe

  /// Starts `tollgate serve --port 0` with `arguments` and waits for its "listening" line.
  public init(_ arguments: [String]) throws {
    output = Pipe()
    errors = Pipe()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, output.fileHandleForWriting.fileDescriptor, 1)
    posix_spawn_file_actions_adddup2(&actions, errors.fileHandleForWriting.fileDescriptor, 2)
    // Nothing else of this process's descriptors (other tests' pipes and sockets) goes along.
    Self.closeFrom(&actions, 3)
    let argv: [UnsafeMutablePointer<CChar>?] =
      ([Self.executable.path, "serve", "--port", "0"] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let status = posix_spawn(&child, argv[0]!, &actions, nil, argv, environ)
    output.fileHandleForWriting.closeFile()
    errors.fileHandleForWriting.closeFile()
    guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
    pid = child
    var log = ""
    while !log.contains("listening on") {
      let chunk = errors.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      log += String(decoding: chunk, as: UTF8.self)
    }
    guard let match = log.firstMatch(of: /127\.0\.0\.1:(\d+)/), let port = Int(match.1) else {
      Glibc.kill(child, SIGKILL)
      _ = Self.wait(child)
      throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: log])
    }
    self.port = port
  }

  /// SIGTERM, then waits for the exit.
  @discardableResult
  public func stop() -> Ending {
    Glibc.kill(pid, SIGTERM)
    return Self.wait(pid)
  }

  /// Sends `signal`, then waits for the child to end.
  public func kill(_ signal: Int32) -> Ending {
    Glibc.kill(pid, signal)
    return Self.wait(pid)
  }

  private static func wait(_ pid: pid_t) -> Ending {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7f
    return signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: Swift's
  /// Glibc module does not declare it.
  static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
  }
}

/// A loopback port nothing listens on right now.
public func freeLoopbackPort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
      bind(fd, pointer, length)
      return getsockname(fd, pointer, &length)
    }
  }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// Runs a program and waits for it with posix_spawn/waitpid; returns its exit status.
/// Foundation's `Process` is not used: `pg_ctl start` leaves a daemon holding the descriptor
/// `Process` watches, so `waitUntilExit` would never return.
public func spawnAndWait(_ arguments: [String]) -> Int32 {
  var pid: pid_t = 0
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  guard let program = argv[0], posix_spawnp(&pid, program, &actions, nil, argv, environ) == 0 else { return -1 }
  var status: Int32 = 0
  waitpid(pid, &status, 0)
  return (status >> 8) & 0xff
}

/// Runs a program with posix_spawn and returns its exit status and what it wrote to standard
/// output and standard error. Both pipes are read while the program runs, so a long one cannot
/// fill a pipe and stall. Foundation's `Process` is not used: under parallel load it closed
/// descriptors of other tests' servers.
public func spawnCapturing(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
  let output = Pipe()
  let errors = Pipe()
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, output.fileHandleForWriting.fileDescriptor, 1)
  posix_spawn_file_actions_adddup2(&actions, errors.fileHandleForWriting.fileDescriptor, 2)
  ServeProcess.closeFrom(&actions, 3)
  let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var pid: pid_t = 0
  let spawned = posix_spawnp(&pid, argv[0]!, &actions, nil, argv, environ)
  output.fileHandleForWriting.closeFile()
  errors.fileHandleForWriting.closeFile()
  guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
  let errorText = Mutex(Data())
  let drained = DispatchSemaphore(value: 0)
  let reader = errors.fileHandleForReading
  DispatchQueue.global().async {
    let data = reader.readDataToEndOfFile()
    errorText.withLock { $0 = data }
    drained.signal()
  }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  drained.wait()
  var status: Int32 = 0
  waitpid(pid, &status, 0)
  return (
    (status >> 8) & 0xff, String(decoding: data, as: UTF8.self),
    String(decoding: errorText.withLock { $0 }, as: UTF8.self)
  )
}
