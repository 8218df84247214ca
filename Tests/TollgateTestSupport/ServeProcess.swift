import Foundation
import Synchronization

/// A `tollgate serve --port 0 …` child process, returned once it listens.
public final class ServeProcess: Sendable {
  /// How a child ended.
  public typealias Ending = ChildProcess.Ending

  /// The built debug executable the tests run.
  public static let executable = builtProducts.appendingPathComponent("tollgate")

  private let child: ChildProcess
  /// The port it bound.
  public let port: Int
  /// The child's process id.
  public var pid: pid_t { child.pid }
  /// Its standard output (keys and curl commands on a first start).
  public var output: Pipe { child.output }
  /// Its standard error, after the "listening" line.
  public var errors: Pipe { child.errors }

  /// Starts `tollgate serve --port 0` with `arguments` and waits for its "listening" line.
  public init(_ arguments: [String]) throws {
    child = try ChildProcess(Self.executable.path, ["serve", "--port", "0"] + arguments)
    let log = child.readErrors(until: "listening on")
    guard let match = log.firstMatch(of: /127\.0\.0\.1:(\d+)/), let port = Int(match.1) else {
      child.kill(SIGKILL)
      throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: log])
    }
    self.port = port
  }

  /// SIGTERM, then waits for the exit.
  @discardableResult
  public func stop() -> Ending { child.stop() }

  /// Sends `signal`, then waits for the child to end.
  @discardableResult
  public func kill(_ signal: Int32) -> Ending { child.kill(signal) }
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
  let child = try ChildProcess(arguments[0], Array(arguments.dropFirst()))
  let errorText = Mutex(Data())
  let drained = DispatchSemaphore(value: 0)
  let reader = child.errors.fileHandleForReading
  DispatchQueue.global().async {
    let data = reader.readDataToEndOfFile()
    errorText.withLock { $0 = data }
    drained.signal()
  }
  let data = child.output.fileHandleForReading.readDataToEndOfFile()
  drained.wait()
  let status: Int32
  switch child.wait() {
  case .exit(let code): status = code
  case .signal(let signal): status = 128 + signal
  }
  return (status, String(decoding: data, as: UTF8.self), String(decoding: errorText.withLock { $0 }, as: UTF8.self))
}
