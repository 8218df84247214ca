import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The behaviour every `Store` must have. Each test runs against every store factory:
/// SQLite always, PostgreSQL when `make test` started a cluster (TOLLGATE_TEST_POSTGRES_URL),
/// and PostgreSQL through PgBouncer in transaction pooling mode when it started one too
/// (TOLLGATE_TEST_PGBOUNCER_URL).
enum StoreFactory: String, CaseIterable, Sendable, CustomStringConvertible {
  case sqlite
  case postgres
  case pgbouncer

  var description: String { rawValue }

  static var available: [StoreFactory] {
    [.sqlite] + (PostgresCluster.url == nil ? [] : [.postgres]) + (PgBouncer.url == nil ? [] : [.pgbouncer])
  }

  func make() throws -> any Database {
    switch self {
    case .sqlite: return try SQLiteStore(path: temporaryDirectory().appendingPathComponent("s.sqlite").path)
    case .postgres: return try PostgresCluster.store()
    case .pgbouncer: return try PgBouncer.store()
    }
  }
}

@Suite("Store conformance")
struct StoreConformanceTests {
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  @Test("apps have unique names and start at revision 0", arguments: StoreFactory.available)
  func apps(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    #expect(app.revision == 0)
    #expect(try store.app(named: "one") == app)
    #expect(try store.app(id: app.id) == app)
    #expect(throws: StoreError.appExists("one")) { try store.createApp(name: "one") }
    #expect(try store.app(named: "two") == nil)
  }

  @Test(
    "profile imports: a batch stored once with its cohorts, history jobs leased one at a time, resumed at their revision",
    arguments: StoreFactory.available)
  func profileImports(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    let id = try store.beginImport(appId: app.id, source: "ndjson", by: "k", at: now)
    func line(_ json: String) throws -> ImportedProfile {
      let value = try WireCoding.decoder.decode(JSONValue.self, from: Data(json.utf8))
      return try ProfileImportLine.parse(value, appId: app.id, now: now).get()
    }
    let batch = [
      try line(#"{"customer_user_id":"u1","installed_at":"2027-01-01T00:00:00Z","transaction_ids":["100"]}"#),
      try line(
        #"{"customer_user_id":"u2","installed_at":"2027-01-02T00:00:00Z","apple_ads":{"campaign_id":1,"ad_group_id":2}}"#
      ),
    ]
    var outcome = try store.importBatch(appId: app.id, batch, at: now)
    #expect(outcome.imported == 2 && outcome.existing == 0 && outcome.histories == 1)
    outcome = try store.importBatch(appId: app.id, batch, at: now)
    #expect(outcome.imported == 0 && outcome.existing == 2 && outcome.histories == 0, "the same lines change nothing")
    // Twice in one batch, or a customer already here under another id: the first stays.
    let twice = try line(#"{"customer_user_id":"u3","installed_at":"2027-01-03T00:00:00Z"}"#)
    var u1Again = try line(#"{"customer_user_id":"u1","installed_at":"2027-01-05T00:00:00Z"}"#)
    u1Again.profile.id = "0c6f3a52-0000-4000-8000-000000000001"
    outcome = try store.importBatch(appId: app.id, [twice, twice, u1Again], at: now)
    #expect(outcome.imported == 1 && outcome.existing == 2 && outcome.histories == 0)
    let live = try store.rollupSnapshot(appId: app.id)
    try store.rebuildRollups(appId: app.id)
    #expect(live == (try store.rollupSnapshot(appId: app.id)), "the cohorts and Apple Ads installs equal a rebuild")
    let u1 = try #require(try store.profile(appId: app.id, customerUserId: "u1"))
    #expect(u1.createdAt == Date(timeIntervalSince1970: 1_798_761_600))
    var record = try #require(try store.profileImport(appId: app.id, id: id))
    record.lines = 2
    record.refusals = "{}\n"
    try store.finishImport(record)
    #expect(try store.profileImport(appId: app.id, id: id)?.lines == 2)
    let jobs = try store.claimHistoryImports(now: now, leaseUntil: now + 120, owner: "a", limit: 64)
    let job = try #require(jobs.first)
    #expect(jobs.count == 1 && job.transactionId == "100" && job.revision == nil && job.attempts == 1)
    #expect(try store.claimHistoryImports(now: now, leaseUntil: now + 120, owner: "b", limit: 64).isEmpty, "leased")
    let page = HistoryImportPage(job: job, revision: "rev-2", transactions: 2, changed: 1, refused: 0)
    #expect(try store.saveHistoryImportPages([page], owner: "a", leaseUntil: now + 120) == [true])
    var stranger = page
    stranger.revision = "rev-9"
    #expect(
      try store.saveHistoryImportPages([stranger], owner: "b", leaseUntil: now + 120) == [false],
      "another owner's page is refused")
    // The lease runs out: another instance resumes at the revision reached.
    let resumed = try #require(
      try store.claimHistoryImports(now: now + 121, leaseUntil: now + 241, owner: "b", limit: 64).first)
    #expect(resumed.revision == "rev-2" && resumed.transactions == 2 && resumed.attempts == 2)
    try store.finishHistoryImports([(resumed, .done)], owner: "b", at: now + 130)
    let progress = try store.historyImportProgress(appId: app.id)
    #expect(progress.customers == 1 && progress.done == 1 && progress.transactions == 2 && progress.pending == 0)
  }

  @Test(
    "support rows: grants derived and revoked, a refund request recorded once, leased, answered and closed, refreshes claimed once",
    arguments: StoreFactory.available)
  func supportRows(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    _ = try store.insertProfile(appId: app.id, ProfileRecord(id: "p1", createdAt: now, updatedAt: now))
    let derive: (PurchaseHistory) -> ProfilePurchases = {
      PurchaseDerivation.derive($0, levels: StoreKitFixtures.levels, now: self.now)
    }
    let recorder = PurchaseRecorder(store)
    let granted = try #require(
      try recorder.grant(
        appId: app.id, profileId: "p1", accessLevel: "premium", expiresAt: now + 86_400, reason: "ticket", by: "k",
        at: now, webhooks: [], derive: derive))
    #expect(granted.1.purchases.payload.accessLevels["premium"]?.isActive == true)
    #expect(granted.1.version == 2)
    #expect(try store.grants(appId: app.id, profileId: "p1").map(\.id) == [granted.0.id])
    #expect(
      try recorder.grant(
        appId: app.id, profileId: "nobody", accessLevel: "premium", expiresAt: nil, reason: "x", by: "k", at: now,
        webhooks: [], derive: derive) == nil)
    let revoked = try #require(
      try recorder.revoke(
        appId: app.id, profileId: "p1", accessLevel: "premium", by: "k", at: now + 60, webhooks: [], derive: derive))
    #expect(
      revoked.0.map(\.id) == [granted.0.id] && revoked.1.purchases.payload.accessLevels["premium"]?.isActive == false)
    #expect(
      try recorder.revoke(
        appId: app.id, profileId: "p1", accessLevel: "premium", by: "k", at: now + 60, webhooks: [], derive: derive)?.0
        .isEmpty == true)
    // A refund request: recorded once with its notification, leased, answered, closed.
    let bought = StoreKitFixtures.transaction("1000", purchased: 0, expires: 30)
    var facts = AppStoreFacts(
      transactions: [StoredTransaction(payload: bought, jws: "jws")], claimant: "p1")
    _ = try recorder.record(appId: app.id, facts, at: now, derive: derive)
    let request = StoredRefundRequest(
      appId: app.id, notificationUUID: "n1", transactionId: "1000", originalTransactionId: "1000",
      productId: "pro_monthly", productType: bought.type, environment: "Sandbox", reason: "OTHER",
      requestedAt: now.timeIntervalSince1970, receivedAt: now.timeIntervalSince1970, status: "pending",
      nextTryAt: now.timeIntervalSince1970)
    facts = AppStoreFacts(
      notification: StoredNotification(
        uuid: "n1", fact: NotificationFact(type: "CONSUMPTION_REQUEST", signedDate: 0, originalTransactionId: "1000"),
        payload: Data("{}".utf8), jws: "jws"))
    facts.refundRequest = request
    _ = try recorder.record(appId: app.id, facts, at: now, derive: derive)
    #expect(try recorder.record(appId: app.id, facts, at: now, derive: derive).duplicate)
    let claimed = try #require(try store.claimRefundRequest(now: now, leaseUntil: now + 120))
    #expect(claimed.attempts == 1 && claimed.reason == "OTHER")
    #expect(try store.claimRefundRequest(now: now, leaseUntil: now + 120) == nil, "leased")
    try store.finishRefundRequest(appId: app.id, notificationUUID: "n1", .retry(next: now + 60, error: "503"), at: now)
    #expect(try store.claimRefundRequest(now: now + 30, leaseUntil: now + 150) == nil, "not due yet")
    _ = try #require(try store.claimRefundRequest(now: now + 60, leaseUntil: now + 180))
    try store.finishRefundRequest(appId: app.id, notificationUUID: "n1", .answered(body: "{}"), at: now + 61)
    try store.purchases(appId: app.id) {
      try $0.closeRefundRequests(transactionId: "1000", outcome: "refunded", at: now + 90)
    }
    let listed = try store.refundRequests(appId: app.id, from: now - 1, to: now + 1)
    #expect(
      listed.map(\.status) == ["answered"] && listed.first?.outcome == "refunded" && listed.first?.owners == ["p1"])
    #expect(try store.refundRequests(appId: app.id, profileId: "p1").count == 1)
    // History refreshes: a request is claimed by one pass only.
    let requested = try store.requestHistoryRefresh(appId: app.id, profileId: "p1", by: "cli", running: false, at: now)
    #expect(requested.status == "requested" && requested.requestedBy == "cli" && requested.profileId == "p1")
    #expect(try store.claimRequestedRefreshes(limit: 8).map(\.profileId) == ["p1"])
    #expect(try store.claimRequestedRefreshes(limit: 8).isEmpty)
    var done = try #require(try store.historyRefresh(appId: app.id, profileId: "p1"))
    done.status = "done"
    done.transactions = 3
    done.sandboxRevision = "rev-3"
    try store.finishHistoryRefresh(done)
    #expect(try store.historyRefresh(appId: app.id, profileId: "p1")?.sandboxRevision == "rev-3")
  }

  @Test(
    "notification recovery: one lease at a time, the page reached survives a lost run, outcomes free the job",
    arguments: StoreFactory.available)
  func recoveries(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    try store.saveAppStoreCredentials(
      appId: app.id, sealedKey: "sealed", keyFingerprint: "f", environments: ["Production", "Sandbox"], at: now)
    let first = try #require(try store.claimRecovery(now: now, leaseUntil: now + 120, owner: "a"))
    let second = try #require(try store.claimRecovery(now: now, leaseUntil: now + 600, owner: "b"))
    #expect(first.environment != second.environment)
    #expect(try store.claimRecovery(now: now, leaseUntil: now + 120, owner: "c") == nil, "both are leased")
    #expect(
      try store.beginRecoveryRun(
        appId: app.id, environment: first.environment, owner: "a", from: now - 3_600, to: now, at: now))
    #expect(
      try store.saveRecoveryPage(
        appId: app.id, environment: first.environment, owner: "a", nextPage: "page-2",
        counts: RecoveryPageCounts(recovered: 2, alreadyKnown: 1), leaseUntil: now + 120, at: now))
    #expect(
      !(try store.saveRecoveryPage(
        appId: app.id, environment: first.environment, owner: "b", nextPage: nil, counts: RecoveryPageCounts(),
        leaseUntil: now + 120, at: now)), "only the lease holder writes")
    // The holder dies; once the lease runs out another instance resumes at the page reached.
    let resumed = try #require(try store.claimRecovery(now: now + 121, leaseUntil: now + 241, owner: "c"))
    #expect(
      resumed.environment == first.environment && resumed.pageToken == "page-2"
        && resumed.runStart == (now - 3_600).timeIntervalSince1970)
    try store.finishRecovery(
      appId: app.id, environment: first.environment, owner: "c",
      .completed(next: now + 600, from: now - 3_600, to: now), at: now + 130)
    let job = try #require(try store.recoveries(appId: app.id).first { $0.environment == first.environment })
    #expect(job.recovered == 2 && job.alreadyKnown == 1 && job.pageToken == nil && job.runStart == nil)
    #expect(job.coveredTo == now.timeIntervalSince1970 && job.leaseOwner == nil)
    try store.finishRecovery(
      appId: app.id, environment: second.environment, owner: "b", .failed(failure: "credentials", error: "401"),
      at: now)
    #expect(try store.recoveries(appId: app.id).first { $0.environment == second.environment }?.status == "failed")
    #expect(try store.requestRecovery(appId: app.id, at: now))
    #expect(try store.recoveries(appId: app.id).allSatisfy { $0.status == "scheduled" })
    // The configuration drops Production: its job goes.
    try store.saveAppStoreCredentials(
      appId: app.id, sealedKey: "sealed", keyFingerprint: "f", environments: ["Sandbox"], at: now)
    #expect(try store.recoveries(appId: app.id).map(\.environment) == ["Sandbox"])
    #expect(try store.deleteAppStoreCredentials(appId: app.id))
    #expect(try store.recoveries(appId: app.id).isEmpty && store.appStoreCredentials(appId: app.id) == nil)
  }

  @Test("config revisions grow by one per apply", arguments: StoreFactory.available)
  func configs(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    #expect(try store.currentConfig(appId: app.id) == nil)
    #expect(
      try store.applyConfig(appId: app.id, document: Data("{\"a\":1}".utf8), at: now, by: "cli", summary: nil) == 1)
    #expect(
      try store.applyConfig(appId: app.id, document: Data("{\"a\":2}".utf8), at: now, by: "cli", summary: nil) == 2)
    #expect(
      try store.currentConfig(appId: app.id)
        == ConfigRecord(revision: 2, document: Data("{\"a\":2}".utf8), appliedAt: now))
    #expect(try store.revisions()[app.id] == 2)
  }

  @Test(
    "profile updates are atomic and versioned; a throwing change leaves no trace", arguments: StoreFactory.available)
  func profiles(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    let record = ProfileRecord(id: "p", customAttributes: ["a": .int(1)], createdAt: now, updatedAt: now)
    let (inserted, created) = try store.insertProfile(appId: app.id, record)
    #expect(inserted == record && created)
    let (existing, createdAgain) = try store.insertProfile(
      appId: app.id, ProfileRecord(id: "p", customerUserId: "x", createdAt: now, updatedAt: now))
    #expect(existing == record && !createdAgain)
    let later = now.addingTimeInterval(60)
    let updated = try store.updateProfile(appId: app.id, id: "p", at: later) { profile in
      profile.appliedSources = ["apple_ads"]
      return true
    }
    #expect(updated?.version == 2)
    #expect(updated?.updatedAt == later)
    struct Boom: Error {}
    #expect(throws: Boom.self) {
      try store.updateProfile(appId: app.id, id: "p", at: later) { profile in
        profile.customerUserId = "lost"
        throw Boom()
      }
    }
    #expect(try store.profile(appId: app.id, id: "p") == updated)
    #expect(try store.updateProfile(appId: app.id, id: "missing", at: later) { _ in true } == nil)
  }

  @Test(
    "single sign-on: settings replaced whole, a sign-in taken once, an identity tied once, invitations accepted once",
    arguments: StoreFactory.available)
  func singleSignOn(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    #expect(try store.singleSignOn() == nil)
    let settings = SingleSignOnSettings(
      issuer: "https://idp.example", clientId: "c", label: "Acme", allowedDomains: ["example.com", "example.org"],
      defaultMembership: .init(appId: app.id, role: .viewer))
    let record = SingleSignOnRecord(settings: settings, sealedSecret: "sealed", updatedAt: now, updatedBy: "cli")
    try store.setSingleSignOn(record)
    try store.setSingleSignOn(record)
    #expect(try store.singleSignOn() == record)

    let request = SignOnRequestRecord(
      stateHash: "h", nonce: "n", codeVerifier: "v", redirectURI: "https://t/cb", createdAt: now)
    try store.addSignOnRequest(request)
    #expect(try store.takeSignOnRequest(stateHash: "h") == request)
    #expect(try store.takeSignOnRequest(stateHash: "h") == nil)
    try store.addSignOnRequest(request)
    #expect(try store.forgetSignOnRequests(before: now.addingTimeInterval(1)) == 1)

    try store.addInvitation(
      InvitationRecord(
        tokenHash: "t1", email: "a@example.com", appId: app.id, role: .editor, createdAt: now,
        expiresAt: now.addingTimeInterval(86_400), acceptedAt: nil, invitedBy: "cli"))
    #expect(try store.openInvitations(email: "a@example.com", now: now).map(\.tokenHash) == ["t1"])
    #expect(try store.openInvitations(email: "a@example.com", now: now.addingTimeInterval(86_401)).isEmpty)
    let write = SignOnWrite(
      personId: nil, email: "a@example.com", name: "A", issuer: "https://idp.example", subject: "s1",
      invitations: ["t1"], membership: nil, at: now)
    let person = try store.recordSignOn(write)
    #expect(person.passwordHash == nil && person.email == "a@example.com")
    // Again (a second tab): the same person, nothing doubled.
    #expect(try store.recordSignOn(write).id == person.id)
    #expect(try store.person(issuer: "https://idp.example", subject: "s1")?.id == person.id)
    #expect(try store.memberships(personId: person.id).map(\.role) == [.editor])
    #expect(try store.openInvitations(email: "a@example.com", now: now).isEmpty)
    // A default membership never overrides a role the person has.
    var again = write
    again.personId = person.id
    again.membership = .init(appId: app.id, role: .viewer)
    _ = try store.recordSignOn(again)
    #expect(try store.memberships(personId: person.id).map(\.role) == [.editor])
    try store.setSingleSignOn(nil)
    #expect(try store.singleSignOn() == nil)
  }

  @Test("the first assignment of a slot wins", arguments: StoreFactory.available)
  func assignments(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    let key = AssignmentKey(appId: app.id, profileId: "p", placementId: "pl", audienceId: "au")
    #expect(try store.assignment(key) == nil)
    #expect(try store.assign(key, variationId: "v1", at: now) == "v1")
    #expect(try store.assign(key, variationId: "v2", at: now) == "v1")
    #expect(try store.assignment(key) == "v1")
  }

  @Test("concurrent writers lose nothing", arguments: StoreFactory.available)
  func concurrentWriters(factory: StoreFactory) async throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    let base = now
    _ = try store.insertProfile(appId: app.id, ProfileRecord(id: "p", createdAt: base, updatedAt: base))
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<4 {
        group.addTask {
          for step in 0..<25 {
            _ = try store.updateProfile(appId: app.id, id: "p", at: base) { profile in
              profile.customAttributes["w\(worker)"] = .int(Int64(step))
              return true
            }
          }
        }
      }
      try await group.waitForAll()
    }
    let profile = try #require(try store.profile(appId: app.id, id: "p"))
    #expect(profile.version == 101)
    #expect(profile.customAttributes == ["w0": .int(24), "w1": .int(24), "w2": .int(24), "w3": .int(24)])
  }

  @Test("a customer user id finds its oldest profile", arguments: StoreFactory.available)
  func customerUserIds(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    let other = try store.createApp(name: "two")
    #expect(try store.profile(appId: app.id, customerUserId: "c-1") == nil)
    let first = ProfileRecord(id: "a", customerUserId: "c-1", createdAt: now, updatedAt: now)
    let second = ProfileRecord(id: "b", customerUserId: "c-1", createdAt: now + 5, updatedAt: now + 5)
    _ = try store.insertProfile(appId: app.id, second)
    _ = try store.insertProfile(appId: app.id, first)
    #expect(try store.profile(appId: app.id, customerUserId: "c-1")?.id == "a")
    #expect(try store.profile(appId: other.id, customerUserId: "c-1") == nil)
  }

  @Test(
    "App Store facts: owners follow the sharing mode; an unowned subscription waits", arguments: StoreFactory.available)
  func appStoreOwners(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    for id in ["p1", "p2"] {
      _ = try store.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: now, updatedAt: now))
    }
    let derive: (PurchaseHistory) -> ProfilePurchases = {
      PurchaseDerivation.derive($0, levels: StoreKitFixtures.levels, now: StoreKitFixtures.date(1))
    }
    let bought = StoredTransaction(
      payload: StoreKitFixtures.transaction("1000", purchased: 0, expires: 30), jws: "jws", variationId: "v1")
    // Apple's notification first: nobody owns 1000 yet.
    let early = try PurchaseRecorder(store).record(
      appId: app.id, AppStoreFacts(transactions: [bought]), at: now, derive: derive)
    #expect(early.unowned == ["1000"])
    let claimed = try PurchaseRecorder(store).record(
      appId: app.id, AppStoreFacts(transactions: [bought], claimant: "p1"), at: now, derive: derive)
    #expect(claimed.claimant?.purchases.payload.accessLevels["premium"]?.isActive == true)
    #expect(try store.transactions(appId: app.id, profileId: "p1").map(\.variationId) == ["v1"])
    let off = try PurchaseRecorder(store).record(
      appId: app.id, AppStoreFacts(transactions: [bought], claimant: "p2", sharing: .off), at: now, derive: derive)
    #expect(off.claimant?.purchases.payload.accessLevels.isEmpty == true)
    let shared = try PurchaseRecorder(store).record(
      appId: app.id, AppStoreFacts(transactions: [bought], claimant: "p2", sharing: .shared), at: now, derive: derive)
    #expect(shared.claimant?.purchases.payload.accessLevels["premium"]?.isActive == true)
    #expect(try store.profile(appId: app.id, id: "p1")?.purchases.payload.accessLevels["premium"]?.isActive == true)
    _ = try PurchaseRecorder(store).record(
      appId: app.id, AppStoreFacts(transactions: [bought], claimant: "p1", sharing: .transfer), at: now, derive: derive)
    #expect(try store.profile(appId: app.id, id: "p2")?.purchases.payload.accessLevels.isEmpty == true)
    #expect(try store.transactions(appId: app.id, profileId: "p2").isEmpty)
  }
}

extension StoreConformanceTests {
  /// Every stored transaction with its credit and named variation, by id.
  static func credits(_ store: any Database) throws -> [String] {
    let sql = """
      SELECT transaction_id, signed_at, attr_placement, attr_audience, attr_variation, attr_profile, variation_id
      FROM app_store_transactions ORDER BY transaction_id
      """
    let read: (any SQLConnection) throws -> [String] = { db in
      try db.query(sql).map { row in
        let columns = ["attr_placement", "attr_audience", "attr_variation", "attr_profile", "variation_id"]
        let values = try columns.map { try row.decode($0, as: String?.self) ?? "-" }
        return
          ([try row.decode("transaction_id", as: String.self), String(try row.decode("signed_at", as: Double.self))]
          + values).joined(separator: " ")
      }
    }
    if let sqlite = store as? SQLiteStore { return try sqlite.with(read) }
    return try #require(store as? PostgresStore).with(read)
  }

  @Test(
    "App Store facts: a unit recording many facts credits and owns exactly as the same facts recorded one by one",
    arguments: StoreFactory.available)
  func batchedFacts(factory: StoreFactory) throws {
    let batched = try factory.make()
    let single = try factory.make()
    defer {
      batched.close()
      single.close()
    }
    let derive: (PurchaseHistory) -> ProfilePurchases = {
      PurchaseDerivation.derive($0, levels: StoreKitFixtures.levels, now: StoreKitFixtures.date(1))
    }
    for seed in UInt64(1)...6 {
      var random = Seeded(state: seed)
      // Subscriptions of a few transactions each, sent out of order, some twice, some signed
      // again later (a replaced row), named or not, with or without a buyer.
      var facts: [AppStoreFacts] = []
      for subscription in 0..<5 {
        let original = "\(seed)\(subscription)00"
        for number in 0..<Int.random(in: 1...4, using: &random) {
          let day = Double(number * 30)
          let id = number == 0 ? original : "\(original)\(number)"
          let variation = ["v1", "v2", nil].randomElement(using: &random)!
          var versions = [
            StoredTransaction(
              payload: StoreKitFixtures.transaction(id, original: original, purchased: day, expires: day + 30),
              jws: "jws", variationId: variation)
          ]
          if Bool.random(using: &random) {
            versions.append(
              StoredTransaction(
                payload: StoreKitFixtures.transaction(
                  id, original: original, purchased: day, expires: day + 30, signed: day + 1), jws: "jws2",
                variationId: nil))
          }
          if Bool.random(using: &random) { versions.append(versions[0]) }
          for version in versions {
            facts.append(
              AppStoreFacts(transactions: [version], claimant: [nil, "p1", "p2"].randomElement(using: &random)!))
          }
        }
      }
      facts.shuffle(using: &random)
      var apps: [Int64] = []
      for store in [batched, single] {
        let app = try store.createApp(name: "seed\(seed)")
        apps.append(app.id)
        for id in ["p1", "p2"] {
          _ = try store.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: now, updatedAt: now))
        }
      }
      _ = try PurchaseRecorder(batched).record(appId: apps[0], facts, at: now, derive: derive)
      for fact in facts {
        _ = try PurchaseRecorder(single).record(appId: apps[1], [fact], at: now, derive: derive)
      }
      #expect(try Self.credits(batched) == Self.credits(single), "seed \(seed)")
      for profile in ["p1", "p2"] {
        #expect(
          try batched.transactions(appId: apps[0], profileId: profile).map(\.payload.transactionId).sorted()
            == single.transactions(appId: apps[1], profileId: profile).map(\.payload.transactionId).sorted(),
          "seed \(seed)")
      }
    }
  }
}

@Suite("PostgreSQL in CI")
struct PostgresPresenceTests {
  @Test("CI runs the PostgreSQL suite (make test starts a cluster and PgBouncer), so it can never be skipped silently")
  func present() {
    if ProcessInfo.processInfo.environment["CI"] == "true" {
      #expect(PostgresCluster.url != nil, "TOLLGATE_TEST_POSTGRES_URL is not set: run the tests with make test")
      #expect(PgBouncer.url != nil, "TOLLGATE_TEST_PGBOUNCER_URL is not set: make test installs pgbouncer")
    }
  }
}
