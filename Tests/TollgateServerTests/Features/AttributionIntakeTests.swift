import Dispatch
import Foundation
import Synchronization
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Tokens of concurrent requests share a transaction, every request hears its own token's
/// outcome, and one refused token fails only its own request (SQLite and PostgreSQL).
@Suite("Attribution intake", .timeLimit(.minutes(5)))
struct AttributionIntakeTests {
  /// A store whose first batch waits at a gate, so others can queue behind it.
  final class GatedWrites: Sendable {
    let store: any Database
    let gate = DispatchSemaphore(value: 0)
    let batches = Mutex<[[String]]>([])
    /// Any batch holding this token is refused whole.
    let refused: String?

    init(store: any Database, refused: String? = nil) {
      self.store = store
      self.refused = refused
    }

    func write(_ tokens: [QueuedToken]) throws -> [(AttributionJob, created: Bool)] {
      let first = batches.withLock { batches in
        batches.append(tokens.map(\.token))
        return batches.count == 1
      }
      if first { gate.wait() }
      if let refused, tokens.contains(where: { $0.token == refused }) {
        throw StoreError.database("refused \(refused)")
      }
      return try store.enqueueAttributions(tokens)
    }
  }

  /// Enqueues `first` (which then waits at the gate), then `others` from threads of their own;
  /// opens the gate once all of them wait; returns each outcome by token.
  func run(
    _ intake: AttributionIntake, _ writes: GatedWrites, first: QueuedToken, others: [QueuedToken]
  ) async -> [String: Result<(AttributionJob, created: Bool), any Error>] {
    let outcomes = Mutex<[String: Result<(AttributionJob, created: Bool), any Error>]>([:])
    let done = DispatchGroup()
    for token in [first] + others {
      done.enter()
      Thread.detachNewThread {
        let outcome = Result { try intake.enqueue(token) }
        outcomes.withLock { $0[token.token] = outcome }
        done.leave()
      }
      if token == first {
        while writes.batches.withLock({ $0.isEmpty }) { try? await Task.sleep(for: .milliseconds(1)) }
      }
    }
    while intake.waiting < others.count { try? await Task.sleep(for: .milliseconds(1)) }
    writes.gate.signal()
    await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
    return outcomes.withLock { $0 }
  }

  func tokens(_ store: any Database, count: Int) throws -> [QueuedToken] {
    let app = try store.createApp(name: "intake")
    return try (0..<count).map { index in
      let id = String(format: "00000000-0000-4000-8000-%012d", index)
      _ = try store.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: Date(), updatedAt: Date()))
      let token = "sbx|campaign=\(index)"
      return QueuedToken(appId: app.id, profileId: id, token: token, tokenHash: Digest.sha256Hex(token), at: Date())
    }
  }

  @Test("tokens arriving during a write are stored together in the next transaction", arguments: StoreFactory.available)
  func groupCommit(factory: StoreFactory) async throws {
    let store = try factory.make()
    defer { store.close() }
    let all = try tokens(store, count: 11)
    let writes = GatedWrites(store: store)
    let intake = AttributionIntake(write: writes.write)
    let outcomes = await run(intake, writes, first: all[0], others: Array(all.dropFirst()))
    #expect(writes.batches.withLock { $0.map(\.count) } == [1, 10])
    for token in all {
      let (job, created) = try #require(try outcomes[token.token]?.get())
      #expect(created)
      #expect(job.profileId == token.profileId && job.token == token.token && job.status == .pending)
      #expect(
        try store.profile(appId: token.appId, id: token.profileId)?.attribution.status[appleAdsSource] == .pending)
    }
    #expect(try store.attributionQueueDepth() == 11)
    // The same token again is the same job, not a new one.
    #expect(try intake.enqueue(all[3]).created == false)
    #expect(intake.figures.tokens == 12)
  }

  @Test(
    "a refused batch is retried token by token: only the refused token's request fails",
    arguments: StoreFactory.available)
  func oneBadToken(factory: StoreFactory) async throws {
    let store = try factory.make()
    defer { store.close() }
    let all = try tokens(store, count: 6)
    let writes = GatedWrites(store: store, refused: all[4].token)
    let intake = AttributionIntake(write: writes.write)
    let outcomes = await run(intake, writes, first: all[0], others: Array(all.dropFirst()))
    for token in all {
      let outcome = try #require(outcomes[token.token])
      if token == all[4] {
        #expect(throws: StoreError.self) { try outcome.get() }
      } else {
        #expect(try outcome.get().created)
      }
    }
    #expect(try store.attributionQueueDepth() == 5)
  }

  @Test(
    "a batch of 100 (several statement chunks) with repeats, known tokens and an applied profile",
    arguments: StoreFactory.available)
  func largeBatch(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let all = try tokens(store, count: 100)
    // Stored before: token 7 (a known job), and profile 9 already attributed.
    _ = try store.enqueueAttributions([all[7]])
    _ = try store.updateProfile(appId: all[9].appId, id: all[9].profileId, at: Date()) { profile in
      profile.attribution.status[appleAdsSource] = .applied
      return true
    }
    let batch = all + [all[3], all[50]]
    let stored = try store.enqueueAttributions(batch)
    #expect(stored.count == batch.count)
    for (token, (job, _)) in zip(batch, stored) {
      #expect(job.profileId == token.profileId && job.tokenHash == token.tokenHash && job.token == token.token)
      #expect(job.status == .pending)
    }
    let created = stored.map(\.created)
    #expect(created[7] == false, "known before the batch")
    #expect(created[100] == false && created[101] == false, "a repeat in the batch is the same job")
    #expect(created.filter { $0 }.count == 99)
    for token in all {
      let status = try store.profile(appId: token.appId, id: token.profileId)?.attribution.status[appleAdsSource]
      #expect(status == (token == all[9] ? .applied : .pending), "\(token.profileId)")
    }
    #expect(try store.attributionQueueDepth() == 100)
    #expect(SQLiteStore.chunks(100) == [0..<64, 64..<96, 96..<100])
  }

  /// Apple answering at once: every token is an attribution to campaign 1.
  struct Attributing: AppleAdsResolving {
    func resolve(token: String) async -> AppleAdsAnswer {
      var payload = AppleAdsPayload(attribution: true)
      payload.campaignId = 1
      return .payload(payload)
    }
  }

  /// The store, refusing any batch of outcomes that holds `refused`'s job, as a database refusing
  /// one row would; it counts the batches it was given.
  final class RefusingFinishes: AttributionJobRepository {
    let store: any Database
    let refused: String
    let outcomeWriters: Int
    let batches = Mutex<[Int]>([])

    init(store: any Database, refused: String, writers: Int) {
      self.store = store
      self.refused = refused
      self.outcomeWriters = writers
    }

    func enqueueAttributions(_ tokens: [QueuedToken]) throws -> [(AttributionJob, created: Bool)] {
      try store.enqueueAttributions(tokens)
    }

    func claimAttributionJobs(now: Date, lease: TimeInterval, limit: Int) throws -> [AttributionJob] {
      try store.claimAttributionJobs(now: now, lease: lease, limit: limit)
    }

    func finishAttributions(_ finishes: [AttributionFinish], at: Date, webhooks: (Int64) -> [WebhookConfig]) throws
      -> [(job: AttributionJob, profile: ProfileRecord)]
    {
      batches.withLock { $0.append(finishes.count) }
      if finishes.contains(where: { $0.job.profileId == refused }) { throw StoreError.database("refused \(refused)") }
      return try store.finishAttributions(finishes, at: at, webhooks: webhooks)
    }

    func attributionQueueDepth() throws -> Int { try store.attributionQueueDepth() }

    func attributionFunnel(appId: Int64) throws -> AttributionFunnel { try store.attributionFunnel(appId: appId) }
  }

  @Test(
    "a worker's pass stores its outcomes in one transaction where the database writes one at a time, else each at once; one that cannot be stored holds back only its own job",
    arguments: StoreFactory.available, [1, 3])
  func passInFewTransactions(factory: StoreFactory, writers: Int) async throws {
    let store = try factory.make()
    defer { store.close() }
    let all = try tokens(store, count: 5)
    _ = try store.enqueueAttributions(all)
    let jobs = RefusingFinishes(store: store, refused: all[2].profileId, writers: writers)
    let changed = Mutex<[String]>([])
    let worker = AttributionWorker(
      attributionJobs: jobs, apple: Attributing(), time: ManualTime(Date().addingTimeInterval(1)), logger: Logger(),
      concurrency: 5, onChange: { profile, _ in changed.withLock { $0.append(profile.id) } })
    #expect(await worker.processDue() == 5)
    let batches = jobs.batches.withLock { $0 }
    if writers == 1 {
      // The pass's five at once, refused whole; then each alone.
      #expect(batches == [5, 1, 1, 1, 1, 1])
    } else {
      // Each as soon as Apple answered, side by side.
      #expect(batches == [1, 1, 1, 1, 1])
    }
    #expect(Set(changed.withLock { $0 }) == Set(all.map(\.profileId).filter { $0 != all[2].profileId }))
    for token in all {
      let status = try store.profile(appId: token.appId, id: token.profileId)?.attribution.status[appleAdsSource]
      #expect(status == (token == all[2] ? .pending : .applied), "\(token.profileId)")
    }
    #expect(try store.attributionQueueDepth() == 1, "the refused job waits for its lease to end")
  }

  /// Apple never reached: tokens stay queued.
  struct Unreachable: AppleAdsResolving {
    func resolve(token: String) async -> AppleAdsAnswer { .unavailable("not asked in this test") }
  }

  @Test(
    "a full queue refuses the next token with 503 attribution_queue_full, though its depth is counted once per interval",
    arguments: StoreFactory.available)
  func queueFull(factory: StoreFactory) async throws {
    let store = try factory.make()
    defer { store.close() }
    let all = try tokens(store, count: 4)
    let time = ManualTime()
    let worker = AttributionWorker(
      attributionJobs: store, apple: Unreachable(), time: time, logger: Logger(), maxQueue: 3)
    let service = AttributionService(
      profileRecords: store, attributionJobs: store, worker: worker, limiter: RateLimiter(clock: { 0 }), limits: .off,
      time: time)
    for token in all.prefix(3) {
      let profile = try #require(try store.profile(appId: token.appId, id: token.profileId))
      #expect(try service.submit(token.token, appId: token.appId, profile: profile, keyId: "k"))
    }
    // The clock has not moved since the first count: the tokens queued since are added to it.
    let last = all[3]
    let profile = try #require(try store.profile(appId: last.appId, id: last.profileId))
    let refused = await withCheckedContinuation { continuation in
      service.submit(last.token, appId: last.appId, profile: profile, keyId: "k") { continuation.resume(returning: $0) }
    }
    #expect(throws: DomainError.self) { try refused.get() }
    if case .failure(let error as DomainError) = refused {
      #expect(error.response.status == 503)
      // When to come back, as for every other 503 that knows.
      #expect(error.response.headers.first { $0.0 == "Retry-After" }?.1 == "30")
    }
    #expect(try store.attributionQueueDepth() == 3)
  }
}
