import Foundation

/// The repository root (fixtures, examples, the built `tollgate`).
public let testRepositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A `tollgate serve --port 0 …` child process, returned once it listens.
public final class ServeProcess: Sendable {
  /// The built debug executable the tests run.
  public static let executable = testRepositoryRoot.appendingPathComponent(".build/debug/tollgate")

  /// The child.
  public let process: Process
  /// The port it bound.
  public let port: Int
  /// Its standard output (keys and curl commands on a first start).
  public let output: Pipe
  /// Its standard error, after the "listening" line.
  public let errors: Pipe

  /// Starts `tollgate serve --port 0` with `arguments` and waits for its "listening" line.
  public init(_ arguments: [String]) throws {
    process = Process()
    process.executableURL = Self.executable
    process.arguments = ["serve", "--port", "0"] + arguments
    output = Pipe()
    errors = Pipe()
    process.standardError = errors
    process.standardOutput = output
    try process.run()
    var log = ""
    while !log.contains("listening on") {
      let chunk = errors.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      log += String(decoding: chunk, as: UTF8.self)
    }
    guard let match = log.firstMatch(of: /127\.0\.0\.1:(\d+)/), let port = Int(match.1) else {
      process.terminate()
      throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: log])
    }
    self.port = port
  }

  /// SIGTERM, then waits for the exit.
  public func stop() {
    process.terminate()
    process.waitUntilExit()
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
