import Foundation

/// A PostgreSQL cluster of a test's own (initdb into a temporary directory, on a free
/// port), for tests that stop the database or run several server processes on it.
final class DedicatedCluster: Sendable {
  let directory: URL
  let port: Int
  let bin: String
  let runAs: [String]

  var url: String { "postgres://tollgate@127.0.0.1:\(port)/postgres" }
  private var options: String { "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1" }

  init() throws {
    let environment = ProcessInfo.processInfo.environment
    guard let bin = environment["TOLLGATE_TEST_POSTGRES_BIN"] else { throw CocoaError(.featureUnsupported) }
    self.bin = bin
    runAs = (environment["TOLLGATE_TEST_POSTGRES_RUNAS"] ?? "").split(separator: " ").map(String.init)
    directory = URL(fileURLWithPath: "/tmp/tollgate-pg-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
    port = Self.freePort()
    try run(["\(bin)/initdb", "-D", directory.appendingPathComponent("data").path, "-U", "tollgate", "--auth=trust"])
    try start()
  }

  func start() throws {
    try run([
      "\(bin)/pg_ctl", "-D", directory.appendingPathComponent("data").path, "-l",
      directory.appendingPathComponent("log").path, "-o", options, "-w", "start",
    ])
  }

  func stop(mode: String = "fast") throws {
    try run(["\(bin)/pg_ctl", "-D", directory.appendingPathComponent("data").path, "-m", mode, "-w", "stop"])
  }

  func remove() {
    try? stop(mode: "immediate")
    try? FileManager.default.removeItem(at: directory)
  }

  private func run(_ arguments: [String]) throws {
    guard spawnAndWait(runAs + arguments) == 0 else { throw CocoaError(.executableLoad) }
  }

  static func freePort() -> Int {
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
}

/// Runs a program and waits for it with posix_spawn/waitpid. Foundation's `Process` is
/// not used here: `pg_ctl start` leaves a daemon holding the descriptor `Process` watches,
/// so `waitUntilExit` would never return.
func spawnAndWait(_ arguments: [String]) -> Int32 {
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
