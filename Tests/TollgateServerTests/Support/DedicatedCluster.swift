import Foundation
import TollgateTestSupport

/// A PostgreSQL cluster of a test's own (initdb into a temporary directory, on a free
/// port), for tests that stop the database or run several server processes on it.
final class DedicatedCluster: Sendable {
  let directory: URL
  let port: Int
  let bin: String
  let runAs: [String]

  var url: String { "postgres://tollgate@127.0.0.1:\(port)/postgres" }
  /// Without fsync: a test stops the server (even with `-m immediate`), never the machine, and what
  /// was written stays in the kernel's cache.
  private var options: String { "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off" }

  init() throws {
    let environment = ProcessInfo.processInfo.environment
    guard let bin = environment["TOLLGATE_TEST_POSTGRES_BIN"] else { throw CocoaError(.featureUnsupported) }
    self.bin = bin
    runAs = (environment["TOLLGATE_TEST_POSTGRES_RUNAS"] ?? "").split(separator: " ").map(String.init)
    directory = URL(fileURLWithPath: "/tmp/tollgate-pg-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
    port = freeLoopbackPort()
    try run([
      "\(bin)/initdb", "--no-sync", "-D", directory.appendingPathComponent("data").path, "-U", "tollgate",
      "--auth=trust",
    ])
    try start()
  }

  /// A streaming replica of `primary` (`pg_basebackup -R`: a hot standby that replays the
  /// primary's WAL; `-c fast` checkpoints at once instead of waiting for a spread one),
  /// started on a port of its own.
  init(replicaOf primary: DedicatedCluster) throws {
    bin = primary.bin
    runAs = primary.runAs
    directory = URL(fileURLWithPath: "/tmp/tollgate-pg-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
    port = freeLoopbackPort()
    try run([
      "\(bin)/pg_basebackup", "-h", "127.0.0.1", "-p", "\(primary.port)", "-U", "tollgate", "-D",
      directory.appendingPathComponent("data").path, "-R", "-X", "stream", "-c", "fast",
    ])
    try start()
  }

  func start() throws {
    let log = directory.appendingPathComponent("log")
    do {
      try run([
        "\(bin)/pg_ctl", "-D", directory.appendingPathComponent("data").path, "-l", log.path, "-o", options, "-w",
        "start",
      ])
    } catch let failure as CommandFailed {
      // The server's own log says why it did not start (a port taken, a recovery that failed).
      let tail = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(20)
      throw CommandFailed(
        command: failure.command, status: failure.status,
        output: failure.output + "\n-- server log:\n" + (tail?.joined(separator: "\n") ?? "(none)"))
    }
  }

  func stop(mode: String = "fast") throws {
    try run(["\(bin)/pg_ctl", "-D", directory.appendingPathComponent("data").path, "-m", mode, "-w", "stop"])
  }

  func remove() {
    try? stop(mode: "immediate")
    try? FileManager.default.removeItem(at: directory)
  }

  /// Runs one SQL statement with psql (as the cluster's superuser).
  func sql(_ statement: String) throws {
    try run(
      ["\(bin)/psql", "-h", "127.0.0.1", "-p", "\(port)", "-U", "tollgate", "-d", "postgres", "-q", "-c", statement],
      as: [])
  }

  /// Runs a PostgreSQL program; a failure says which command, its status and what it wrote, so a
  /// red test tells why the cluster would not start, stop or answer.
  private func run(_ arguments: [String], as user: [String]? = nil) throws {
    let command = (user ?? runAs) + arguments
    let result = try spawnCapturing(command)
    guard result.status == 0 else {
      throw CommandFailed(
        command: command.joined(separator: " "), status: result.status, output: result.output + result.errors)
    }
  }

  /// A cluster command that exited with a status other than 0.
  struct CommandFailed: Error, CustomStringConvertible {
    let command: String
    let status: Int32
    let output: String
    var description: String { "\(command) exited with \(status): \(output)" }
  }

}
