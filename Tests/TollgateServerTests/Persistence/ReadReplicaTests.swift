import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

@Suite(
  "Reports off the primary: a real streaming replica", .enabled(if: PostgresCluster.url != nil),
  .timeLimit(.minutes(5)))
struct ReadReplicaTests {
  // Measured by hand at each step (`refresh()`): the background measurement every
  // `checkInterval` is kept out of the way with an hour's interval.

  /// Waits (on the replica's own schedule: replication is another process) until the replica
  /// has replayed everything the primary wrote, at most 20 s; the reports that follow go by
  /// that measurement.
  static func caughtUp(_ replica: ReadReplica) async throws {
    for _ in 0..<200 {
      let health = replica.refresh()
      if health.caughtUp { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record("the replica did not catch up: \(replica.measure())")
  }

  @Test(
    "reports read on the replica with as_of; the primary answers while it lags too far or is gone, and the replica again once back"
  )
  func replica() async throws {
    let primaryCluster = try DedicatedCluster()
    defer { primaryCluster.remove() }
    let primary = try PostgresStore(url: primaryCluster.url, connections: 3)
    let replicaCluster = try DedicatedCluster(replicaOf: primaryCluster)
    defer { replicaCluster.remove() }
    let time = ManualTime(Date())
    let reads = ReadReplica(
      url: replicaCluster.url, primary: primary, policy: .init(maxLag: 30, checkInterval: 3_600), time: time,
      logger: Logger(level: .error))
    let server = try TestServer(time: time, store: OpenedStore(primary, cache: nil), readReplica: reads)
    defer { server.stop() }
    for _ in 0..<3 { _ = try await server.createProfile() }
    try await Self.caughtUp(reads)
    time.advance(days: 2.0 / 86_400)

    func cohorts() async throws -> (installs: Int?, from: String?, asOf: String?) {
      let answer = try await server.admin("GET", "/v1/admin/stats/cohorts?segment=none")
      #expect(answer.status == 200)
      let installs = answer.json?.objectValue?["cohorts"]?.arrayValue?.compactMap {
        $0.objectValue?["installs"]?.numberValue.map { Int($0) }
      }.reduce(0, +)
      return (installs, answer.header("X-Tollgate-Read-From"), answer.header("X-Tollgate-As-Of"))
    }
    let fromReplica = try await cohorts()
    #expect(fromReplica.from == "replica")
    #expect(fromReplica.installs == 3)
    #expect(fromReplica.asOf != nil)

    // Replay paused: a new install is on the primary only. Within the lag limit the replica
    // still answers, saying as of when; beyond it the primary answers.
    try replicaCluster.sql("SELECT pg_wal_replay_pause()")
    _ = try await server.createProfile()
    time.advance(days: 2.0 / 86_400)
    reads.refresh()
    let stale = try await cohorts()
    #expect(stale.from == "replica" && stale.installs == 3)
    // The replica's last replay is stamped with the real time of the commit it replayed, and
    // the test's clock started at the real time: ten minutes on is beyond the limit however
    // long the steps above took (the suite's time limit is two minutes).
    time.advance(days: 600.0 / 86_400)
    reads.refresh()
    let behind = try await cohorts()
    #expect(behind.from == "primary" && behind.installs == 4)
    try replicaCluster.sql("SELECT pg_wal_replay_resume()")
    try await Self.caughtUp(reads)
    time.advance(days: 2.0 / 86_400)
    #expect(try await cohorts().from == "replica")

    // The replica dies between two measurements: the read that fails there is answered by the
    // primary, and so are the next ones; it comes back, and reports go there again.
    try replicaCluster.stop(mode: "immediate")
    let lost = try await cohorts()
    #expect(lost.from == "primary" && lost.installs == 4)
    #expect(try await cohorts().from == "primary")
    #expect(!reads.refresh().usable, "measured while down: still the primary")
    #expect(try await cohorts().from == "primary")
    try replicaCluster.start()
    try await Self.caughtUp(reads)
    time.advance(days: 2.0 / 86_400)
    let back = try await cohorts()
    #expect(back.from == "replica" && back.installs == 4)
  }
}
