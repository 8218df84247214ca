import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The rollups answer the stats routes; they are kept live as facts arrive, in any order, and
/// a rebuild from raw rows must agree with them exactly (SQLite and PostgreSQL).
@Suite("Rollups")
struct RollupTests {
  typealias F = StoreKitFixtures

  static let variations = [
    "onboarding:default:standard", "onboarding:apple_ads_brand:aa_offer", "onboarding:apple_ads_brand:aa_offer_b",
    "settings_upgrade:default:standard",
  ]

  /// Random installs, views, purchases (some credited by the SDK, some by the last view, some
  /// not at all), renewals, trials, refunds and Apple Ads attribution, delivered shuffled; and
  /// customers from before Tollgate — imported with their install days (some with Apple Ads
  /// attribution), their App Store histories recorded as an import records them, two customers'
  /// pages in one unit of work, shuffled with the rest.
  func populate(_ store: any Database, appId: Int64, seed: UInt64, profiles count: Int = 40, imports: Int = 12)
    throws
  {
    var random = Seeded(state: seed)
    let profiles = (0..<count).map { index in String(format: "00000000-0000-4000-8000-%012d", index) }
    for (index, id) in profiles.enumerated() {
      _ = try store.insertProfile(
        appId: appId, ProfileRecord(id: id, createdAt: F.date(Double(index % 5) * 9), updatedAt: F.date(0)))
    }
    enum Fact {
      case view(String, String, Double)
      case buy(String, TransactionPayload, String?)
      case notify(TransactionPayload)
      case fail(String, Double, grace: Bool)
      case attribute(String, Int64, Int64?, Int64?)
      case report(String, Bool)
      case history([(String, [TransactionPayload])])
    }
    var facts: [Fact] = []
    var transactionId = 10_000
    var imported: [ImportedProfile] = []
    var histories: [(String, [TransactionPayload])] = []
    for index in 0..<imports {
      let id = String(format: "00000000-0000-4000-9000-%012d", index)
      let installed = Double(Int.random(in: -30...2, using: &random))
      let ads =
        Bool.random(using: &random)
        ? #","apple_ads":{"campaign_id":542370539,"ad_group_id":\#(Int.random(in: 1...2, using: &random)),"keyword_id":7}"#
        : ""
      let line =
        #"{"profile_id":"\#(id)","installed_at":"\#(Timestamp.string(F.date(installed)))","store_country":"DEU"\#(ads)}"#
      let value = try WireCoding.decoder.decode(JSONValue.self, from: Data(line.utf8))
      imported.append(try ProfileImportLine.parse(value, appId: appId, now: F.date(40)).get())
      guard Bool.random(using: &random) else { continue }
      transactionId += 10
      let original = String(transactionId)
      let start = installed + Double.random(in: 0...3, using: &random)
      var history = [F.transaction(original, original: original, purchased: start, expires: start + 30, price: 9_990)]
      if Bool.random(using: &random) {
        history.append(
          F.transaction(
            String(transactionId + 1), original: original, purchased: start + 30, expires: start + 60,
            reason: "RENEWAL",
            price: 9_990))
      }
      if Int.random(in: 0..<3, using: &random) == 0 {
        // A second subscription bought before the switch: one page, two purchases of one buyer.
        let second = String(transactionId + 5)
        history.append(F.transaction(second, original: second, purchased: start + 2, expires: start + 32, price: 4_990))
      }
      histories.append((id, history))
      if histories.count == 2 {
        facts.append(.history(histories))
        histories = []
      }
    }
    if !histories.isEmpty { facts.append(.history(histories)) }
    _ = try store.importBatch(appId: appId, imported, at: F.date(0))
    for profile in imported.map(\.profile.id) where Bool.random(using: &random) {
      // After the switch: an imported customer sees a paywall.
      facts.append(
        .view(profile, Self.variations.randomElement(using: &random)!, Double.random(in: 3...6, using: &random)))
    }
    for profile in profiles {
      let variation = Self.variations.randomElement(using: &random)!
      for _ in 0..<Int.random(in: 0...4, using: &random) {
        facts.append(.view(profile, variation, Double.random(in: 0...6, using: &random)))
      }
      if Bool.random(using: &random) {
        facts.append(
          .attribute(
            profile, [542_370_539, 542_370_540].randomElement(using: &random)!, Int64.random(in: 1...2, using: &random),
            Bool.random(using: &random) ? nil : 7))
        facts.append(.report(profile, Bool.random(using: &random)))
      }
      guard Int.random(in: 0..<3, using: &random) > 0 else { continue }
      transactionId += 10
      let original = String(transactionId)
      let day = Double.random(in: 0...6, using: &random)
      let trial = Bool.random(using: &random)
      let first = F.transaction(
        original, original: original, purchased: day, expires: day + 7, offerType: trial ? 1 : nil,
        discount: trial ? "FREE_TRIAL" : nil, price: trial ? 0 : [9_990, 4_990].randomElement(using: &random)!)
      var withCurrency = first
      withCurrency.currency = Bool.random(using: &random) ? "USD" : "EUR"
      let named = Int.random(in: 0..<3, using: &random) == 0 ? nil : variation
      facts.append(.buy(profile, withCurrency, named))
      if Bool.random(using: &random) {
        var renewal = F.transaction(
          String(transactionId + 1), original: original, purchased: day + 7, expires: day + 37, price: 9_990)
        renewal.currency = withCurrency.currency
        facts.append(Bool.random(using: &random) ? .notify(renewal) : .buy(profile, renewal, nil))
      }
      if Int.random(in: 0..<4, using: &random) == 0 {
        facts.append(.fail(original, day + 6.5, grace: Bool.random(using: &random)))
      }
      if Int.random(in: 0..<4, using: &random) == 0 {
        var refunded = withCurrency
        refunded.signedDate += 86_400_000
        refunded.revocationDate = refunded.purchaseDate + 86_400_000
        facts.append(.notify(refunded))
      }
    }
    facts.shuffle(using: &random)
    let derive: (PurchaseHistory) -> ProfilePurchases = {
      PurchaseDerivation.derive($0, levels: F.levels, now: F.date(3))
    }
    var attributions: [AttributionFinish] = []
    func finishAttributions() throws {
      _ = try store.finishAttributions(attributions, at: F.date(0), webhooks: { _ in [] })
      attributions = []
    }
    for fact in facts {
      switch fact {
      case .view(let profile, let variation, let day):
        let parts = variation.split(separator: ":").map(String.init)
        _ = try store.recordEvents(
          appId: appId,
          [
            EventRecord(
              eventId: UUID().uuidString, profileId: profile, placementId: parts[0], audienceId: parts[1],
              variationId: variation, flowId: parts[2], receivedAt: F.date(day))
          ])
      case .buy(let profile, let transaction, let variation):
        _ = try PurchaseRecorder(store).record(
          appId: appId,
          AppStoreFacts(
            transactions: [StoredTransaction(payload: transaction, jws: "jws", variationId: variation)],
            claimant: profile), at: F.date(Double(transaction.purchaseDate - F.milliseconds(0)) / 86_400_000),
          derive: derive)
      case .notify(let transaction):
        let fact = NotificationFact(
          type: "DID_RENEW", signedDate: transaction.signedDate,
          originalTransactionId: transaction.originalTransactionId)
        _ = try PurchaseRecorder(store).record(
          appId: appId,
          AppStoreFacts(
            transactions: [StoredTransaction(payload: transaction, jws: "jws")],
            notification: StoredNotification(uuid: UUID().uuidString, fact: fact, payload: Data("{}".utf8), jws: "jws")),
          at: F.date(6), derive: derive)
      case .fail(let original, let day, let grace):
        let fact = NotificationFact(
          type: "DID_FAIL_TO_RENEW", subtype: grace ? "GRACE_PERIOD" : nil, signedDate: F.milliseconds(day),
          originalTransactionId: original)
        _ = try PurchaseRecorder(store).record(
          appId: appId,
          AppStoreFacts(
            notification: StoredNotification(uuid: UUID().uuidString, fact: fact, payload: Data("{}".utf8), jws: "jws")),
          at: F.date(6), derive: derive)
      case .attribute(let profile, let campaign, let adGroup, let keyword):
        // Finished as the worker finishes a pass: several in one transaction, some profiles with
        // a second token in the same batch (an applied attribution is permanent: it changes nothing).
        var payload = AppleAdsPayload(attribution: true)
        payload.campaignId = campaign
        payload.adGroupId = adGroup
        payload.keywordId = keyword
        let outcome = AttributionOutcome.final(.applied, payload: payload, attempts: 1, error: nil)
        let tokens = profile.hasSuffix("3") ? ["t-\(profile)", "t2-\(profile)"] : ["t-\(profile)"]
        for token in tokens {
          let (job, _) = try store.enqueueAttribution(
            appId: appId, profileId: profile, token: token, tokenHash: "h-\(token)", at: F.date(0))
          attributions.append(
            AttributionFinish(job, outcome, settle: { AttributionWorker.settle($0, outcome, at: F.date(0)) }))
        }
        if attributions.count >= 4 { try finishAttributions() }
      case .report(let profile, let inTime):
        try store.recordFirstLaunch(appId: appId, profileId: profile, aaFlowInTime: inTime, at: F.date(0))
      case .history(let pages):
        _ = try PurchaseRecorder(store).record(
          appId: appId,
          pages.map { profile, transactions in
            AppStoreFacts(
              transactions: transactions.map {
                StoredTransaction(payload: $0, jws: "jws", variationId: nil, owned: true)
              },
              claimant: profile)
          }, at: F.date(40), derive: derive)
      }
    }
    try finishAttributions()
  }

  @Test(
    "live rollups and a rebuild from raw rows agree exactly, whatever the arrival order",
    arguments: StoreFactory.available, [1, 2, 3] as [UInt64])
  func rebuildAgrees(factory: StoreFactory, seed: UInt64) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "rollups")
    try populate(store, appId: app.id, seed: seed)
    let live = try store.rollupSnapshot(appId: app.id)
    #expect(live.count > 50)
    #expect(live.contains { $0.hasPrefix("stats_payer_revenue ") } && live.contains { $0.hasPrefix("stats_payers ") })
    #expect(
      live.contains { $0.hasPrefix("stats_subscription_days ") }
        && live.contains { $0.hasPrefix("stats_subscriptions ") })
    #expect(
      live.contains { $0.hasPrefix("stats_cohort_segments ") }
        && live.contains { $0.hasPrefix("stats_cohort_profiles ") })
    #expect(
      live.contains { $0.hasPrefix("stats_cohort_segments ") && $0.contains(" origin ") && $0.contains(" import ") })
    try store.rebuildRollups(appId: app.id)
    let rebuilt = try store.rollupSnapshot(appId: app.id)
    #expect(rebuilt == live)
    try Self.expectWholePeriodsAgree(store, appId: app.id)
    try Self.expectTopAgrees(store, appId: app.id)
    Self.recordDifference(live, "live", rebuilt, "rebuilt")
  }

  @Test(
    "many customers' transactions recorded in one unit of work give the profiles and rollups recording them one at a time gives",
    arguments: StoreFactory.available)
  func batchAgreesWithOneByOne(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let derive: (PurchaseHistory) -> ProfilePurchases = Self.deriveOnDay9
    let profiles = (0..<12).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
    // Each customer buys under its appAccountToken (no claimant, as Apple's notifications and
    // the live-path benchmark send them); some subscriptions were recorded before the batch,
    // some start with a trial, renew, or are refunded by a version signed later in the batch.
    var earlier: [TransactionPayload] = []
    var batch: [TransactionPayload] = []
    for (index, profile) in profiles.enumerated() {
      let original = String(20_000 + index * 10)
      let start = Double(index % 4)
      let trial = index % 3 == 0
      let first = F.transaction(
        original, original: original, purchased: start, expires: start + 7, offerType: trial ? 1 : nil,
        discount: trial ? "FREE_TRIAL" : nil, token: profile, price: trial ? 0 : 9_990)
      if index % 4 == 0 { earlier.append(first) } else { batch.append(first) }
      for period in 1..<(1 + index % 3) {
        batch.append(
          F.transaction(
            String(20_000 + index * 10 + period), original: original, purchased: start + Double(period) * 7,
            expires: start + Double(period + 1) * 7, token: profile))
      }
      if index % 5 == 1 {
        var refunded = first
        refunded.signedDate += 86_400_000
        refunded.revocationDate = refunded.purchaseDate + 86_400_000
        batch.append(refunded)
      }
    }
    var snapshots: [[String]] = []
    var purchases: [[ProfilePurchases]] = []
    for oneByOne in [false, true] {
      let app = try store.createApp(name: oneByOne ? "one-by-one" : "batch")
      func record(_ payloads: [TransactionPayload]) throws {
        _ = try PurchaseRecorder(store).record(
          appId: app.id, AppStoreFacts(transactions: payloads.map { StoredTransaction(payload: $0, jws: "jws") }),
          at: F.date(9), derive: derive)
      }
      for (index, id) in profiles.enumerated() {
        _ = try store.insertProfile(
          appId: app.id, ProfileRecord(id: id, createdAt: F.date(Double(index % 4)), updatedAt: F.date(0)))
      }
      // One buyer from Apple Ads: its keyword earns the revenue and counts a purchaser once.
      var payload = AppleAdsPayload(attribution: true)
      (payload.campaignId, payload.adGroupId, payload.keywordId) = (542_370_539, 1, 7)
      let outcome = AttributionOutcome.final(.applied, payload: payload, attempts: 1, error: nil)
      let (job, _) = try store.enqueueAttribution(
        appId: app.id, profileId: profiles[1], token: "t", tokenHash: "h", at: F.date(0))
      _ = try store.finishAttributions(
        [AttributionFinish(job, outcome, settle: { AttributionWorker.settle($0, outcome, at: F.date(0)) })],
        at: F.date(0), webhooks: { _ in [] })
      for payload in earlier { try record([payload]) }
      if oneByOne {
        for payload in batch { try record([payload]) }
      } else {
        try record(batch)
      }
      snapshots.append(try Self.rollupRows(store, appId: app.id))
      purchases.append(try profiles.map { try #require(try store.profile(appId: app.id, id: $0)).purchases })
    }
    #expect(snapshots[0] == snapshots[1])
    #expect(purchases[0] == purchases[1])
    #expect(snapshots[0].contains { $0.hasPrefix("stats_apple_ads_revenue ") })
    #expect(purchases[0].filter { $0.purchaseCount > 0 }.count == profiles.count)
    Self.recordDifference(snapshots[0], "batch", snapshots[1], "one by one")
  }

  @Test(
    "an import's pages for many customers recorded in one unit give the profiles and rollups a unit per page gives",
    arguments: StoreFactory.available)
  func importPagesTogether(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let derive: (PurchaseHistory) -> ProfilePurchases = Self.deriveOnDay9
    let profiles = (0..<10).map { String(format: "00000000-0000-4000-8000-%012d", 100 + $0) }
    // Each customer's page: a purchase (some a trial) and renewals; some refunded by a later
    // version in the same page; customer 3 was recorded before; customer 7 restores customer
    // 6's subscription (transferred to 7 under one sharing rule, shared under another);
    // customer 9 bought under its appAccountToken before its profile existed.
    var pages: [AppStoreFacts] = []
    for (index, profile) in profiles.enumerated() {
      let original = String(30_000 + index * 10)
      let start = Double(index % 4)
      let trial = index % 3 == 0
      var page = [
        F.transaction(
          original, original: original, purchased: start, expires: start + 7, offerType: trial ? 1 : nil,
          discount: trial ? "FREE_TRIAL" : nil, token: index == 9 ? profile : nil, price: trial ? 0 : 9_990)
      ]
      for period in 1..<(1 + index % 3) {
        page.append(
          F.transaction(
            String(30_000 + index * 10 + period), original: original, purchased: start + Double(period) * 7,
            expires: start + Double(period + 1) * 7, token: index == 9 ? profile : nil))
      }
      if index % 4 == 1 {
        var refunded = page[0]
        refunded.signedDate += 86_400_000
        refunded.revocationDate = refunded.purchaseDate + 86_400_000
        page.append(refunded)
      }
      if index == 7 { page.append(pages[6].transactions[0].payload) }
      pages.append(
        AppStoreFacts(
          transactions: page.map { StoredTransaction(payload: $0, jws: "jws", owned: true) }, claimant: profile,
          sharing: index == 7 ? .transfer : .shared))
    }
    var snapshots: [[String]] = []
    var purchases: [[ProfilePurchases]] = []
    for together in [true, false] {
      let app = try store.createApp(name: together ? "together" : "page-by-page")
      let recorder = PurchaseRecorder(store)
      for (index, id) in profiles.enumerated() where index != 9 {
        _ = try store.insertProfile(
          appId: app.id, ProfileRecord(id: id, createdAt: F.date(Double(index % 4)), updatedAt: F.date(0)))
      }
      // Before the import: customer 3's page, and customer 9's purchase with no profile to own it.
      _ = try recorder.record(appId: app.id, pages[3], at: F.date(9), derive: derive)
      let unowned = try recorder.record(
        appId: app.id, AppStoreFacts(transactions: [pages[9].transactions[0]]), at: F.date(9), derive: derive)
      #expect(unowned.unowned == ["30090"])
      _ = try store.insertProfile(
        appId: app.id, ProfileRecord(id: profiles[9], createdAt: F.date(1), updatedAt: F.date(0)))
      let outcomes: [AppStoreFactsOutcome]
      if together {
        outcomes = try recorder.record(appId: app.id, pages, at: F.date(9), derive: derive)
      } else {
        outcomes = try pages.map { try recorder.record(appId: app.id, [$0], at: F.date(9), derive: derive)[0] }
      }
      #expect(outcomes.map { $0.claimant?.id } == profiles)
      snapshots.append(try Self.rollupRows(store, appId: app.id))
      purchases.append(try profiles.map { try #require(try store.profile(appId: app.id, id: $0)).purchases })
      let owners = try store.purchases(appId: app.id) { rows in try rows.owners(of: "30060") }
      #expect(owners == [profiles[7]], "customer 7 restored customer 6's subscription under transfer")
    }
    #expect(snapshots[0] == snapshots[1])
    #expect(purchases[0] == purchases[1])
    #expect(purchases[0][6].purchaseCount == 0 && purchases[0][7].purchaseCount > 0)
    #expect(purchases[0][9].purchaseCount > 0, "the purchase made before the profile existed joined it")
    Self.recordDifference(snapshots[0], "together", snapshots[1], "page by page")
  }

  @Test(
    "cohort rows another segmentation holds are kept once, and every segmentation reads what all eight kept apart would say",
    arguments: StoreFactory.available)
  func cohortRowsKeptOnce(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "rollups")
    try populate(store, appId: app.id, seed: 5)
    let kept = try store.rollupSnapshot(appId: app.id).filter { $0.hasPrefix("stats_cohort_segments ") }
      .map { $0.split(separator: " ").map(String.init) }
    // The cells: table, app, segment, grain, period, value, environment, currency, age, counters.
    #expect(Set(kept.map { $0[2] }) == ["source", "campaign", "ad_group", "keyword", "variation", "country", "origin"])
    #expect(!kept.contains { ["campaign", "ad_group", "keyword"].contains($0[2]) && $0[5] == "organic" })
    #expect(kept.contains { $0[2] == "source" && $0[5] == "organic" } && kept.contains { $0[5] == "apple_ads" })
    // What each segmentation's cohorts are, summed from every profile's contribution as kept
    // beside it, each install in all eight segmentations.
    let relational = try #require(store as? any RelationalStore)
    let contributions = try relational.with { db in
      try db.query("SELECT dimensions, changes FROM stats_cohort_profiles WHERE app_id = ?", [SQLValue.integer(app.id)])
        .map { row in
          (
            try WireCoding.decoder.decode(
              CohortDimensions.self, from: Data(try row.decode("dimensions", as: String.self).utf8)),
            try ContributionText.decode(try row.decode("changes", as: String.self), as: CohortAge.self)
          )
        }
    }
    #expect(contributions.count > 20)
    let first = StatsDay.of(F.date(0))
    for range in [first...(first + 40), (first - 3)...(first + 17), (first + 9)...(first + 70)] {
      for grouping in SubscriptionReport.Grouping.allCases {
        for segment in CohortReport.Segment.allCases {
          var expected: [CohortTotals] = []
          for (install, changes) in contributions where range.contains(install.installDay) {
            for (where_, counters) in changes where ["", "Sandbox"].contains(where_.environment) {
              guard let age = CohortReport.bucket(where_.age) else { continue }
              expected.append(
                CohortTotals(
                  start: install.installDay, segment: segment.value(install), currency: where_.currency, age: age,
                  counters: CohortCounters(values: counters)))
            }
          }
          func report(_ rows: [CohortTotals]) -> CohortReport {
            CohortReport.build(
              installDays: range, by: grouping, segment: segment, environment: "Sandbox", rows: rows,
              reporting: nil, today: first + 400)
          }
          let read = try store.cohortRows(
            appId: app.id, installDays: range, by: grouping, segment: segment, environment: "Sandbox")
          #expect(report(read) == report(expected), "\(range) by \(grouping) segment \(segment)")
          #expect(!report(expected).cohorts.isEmpty)
          let installs = try store.cohortSegmentInstalls(
            appId: app.id, installDays: range, by: grouping, segment: segment, environment: "Sandbox")
          #expect(
            installs == Dictionary(report(expected).cohorts.map { ($0.segment, $0.installs) }, uniquingKeysWith: +),
            "\(range) by \(grouping) segment \(segment)")
        }
      }
    }
  }

  /// Which rows only one of two snapshots that should be equal has: what a failed comparison
  /// of thousands of rows needs said.
  static func recordDifference(_ a: [String], _ aName: String, _ b: [String], _ bName: String) {
    guard a != b else { return }
    let (first, second) = (Set(a), Set(b))
    Issue.record(
      "only \(aName): \(first.subtracting(second).sorted())\nonly \(bName): \(second.subtracting(first).sorted())")
  }

  /// Purchases as derived on day 9 of the fixtures.
  static func deriveOnDay9(_ history: PurchaseHistory) -> ProfilePurchases {
    PurchaseDerivation.derive(history, levels: F.levels, now: F.date(9))
  }

  /// Every rollup row of an app but its app id, so two apps' rows compare.
  static func rollupRows(_ store: some Database, appId: Int64) throws -> [String] {
    try store.rollupSnapshot(appId: appId).map { line in
      let cells = line.split(separator: " ", maxSplits: 2)
      return "\(cells[0]) \(cells.count > 2 ? cells[2] : "")"
    }
  }

  /// A cohort report read from the weekly or monthly rollup (with the range's cut periods from
  /// the daily one) says what the same report built from daily rows says.
  static func expectWholePeriodsAgree(_ store: some Database, appId: Int64) throws {
    let first = StatsDay.of(F.date(0))
    let today = first + 400
    for range in [
      first...(first + 40), (first - 3)...(first + 17), (first + 8)...(first + 12), (first + 9)...(first + 70),
    ] {
      for grouping in [SubscriptionReport.Grouping.week, .month] {
        for segment in CohortReport.Segment.allCases {
          func report(_ rows: [CohortTotals]) -> CohortReport {
            CohortReport.build(
              installDays: range, by: grouping, segment: segment, environment: "Sandbox", rows: rows,
              reporting: nil, today: today)
          }
          let whole = try store.cohortRows(
            appId: appId, installDays: range, by: grouping, segment: segment, environment: "Sandbox")
          let daily = try store.cohortRows(
            appId: appId, installDays: range, by: .day, segment: segment, environment: "Sandbox")
          #expect(report(whole) == report(daily), "\(range) by \(grouping) segment \(segment)")
          #expect(!report(daily).cohorts.isEmpty)
        }
      }
    }
  }

  /// A report of the `top` segments, whose `others` is every install's rows less the kept
  /// segments', says what summing every other segment's rows into `others` says.
  static func expectTopAgrees(_ store: some Database, appId: Int64) throws {
    let first = StatsDay.of(F.date(0))
    let today = first + 400
    for range in [first...(first + 40), (first - 3)...(first + 17), (first + 9)...(first + 70)] {
      for grouping in ["day", "week", "month"] {
        for segment in CohortReport.Segment.allCases where segment != .none {
          for top in [1, 2, 3] {
            let request = try CohortReport.request([
              "by": grouping, "segment": segment.rawValue, "environment": "sandbox", "top": String(top),
            ])
            func report(_ rows: [CohortTotals]) -> CohortReport {
              CohortReport.build(
                installDays: range, by: request.grouping, segment: segment, environment: "Sandbox", rows: rows,
                reporting: nil, today: today)
            }
            let (topped, inOthers) = try store.cohortRows(appId: appId, installDays: range, request: request)
            let every = try store.cohortRows(
              appId: appId, installDays: range, by: request.grouping, segment: segment, environment: "Sandbox")
            let installs = try store.cohortSegmentInstalls(
              appId: appId, installDays: range, by: request.grouping, segment: segment, environment: "Sandbox")
            let kept = request.kept(installs) ?? Set(installs.keys)
            let folded = every.map { row in
              guard !kept.contains(row.segment) else { return row }
              var row = row
              (row.segment, row.inOthers) = (CohortReport.others, true)
              return row
            }
            let label = "\(range) by \(grouping) segment \(segment) top \(top)"
            #expect(report(topped) == report(folded), "\(label)")
            #expect(inOthers == installs.count - kept.count, "\(label)")
          }
        }
      }
    }
  }

  @Test("a database from before the payer rollups gets them, from its transactions, when it first opens")
  func payerRollupsMigrate() throws {
    let path = temporaryDirectory().appendingPathComponent("old.sqlite").path
    let store = try SQLiteStore(path: path)
    let app = try store.createApp(name: "rollups")
    try populate(store, appId: app.id, seed: 4)
    let live = try store.rollupSnapshot(appId: app.id)
    store.close()
    // What the previous release left: no payer tables, its last step recorded.
    let old = try SQLiteConnection(path: path)
    try old.execute(
      "DROP TABLE stats_payers; DROP TABLE stats_payer_revenue; DELETE FROM schema_migrations WHERE version = 7")
    old.close()
    let upgraded = try SQLiteStore(path: path)
    defer { upgraded.close() }
    #expect(try upgraded.rollupSnapshot(appId: app.id) == live)
  }

  @Test("a database from before cohort rows were kept once loses the rows read from others when it first opens")
  func cohortRowsKeptOnceMigrate() throws {
    let path = temporaryDirectory().appendingPathComponent("old.sqlite").path
    let store = try SQLiteStore(path: path)
    let app = try store.createApp(name: "rollups")
    try populate(store, appId: app.id, seed: 6)
    let live = try store.rollupSnapshot(appId: app.id)
    store.close()
    // What the previous release kept besides: every install's rows, and an organic install's
    // campaign, ad group and keyword rows (the same as its source's), its last step recorded.
    let old = try SQLiteConnection(path: path)
    let counters = CohortCounters.columns.joined(separator: ", ")
    let sums = CohortCounters.columns.map { "SUM(\($0))" }.joined(separator: ", ")
    try old.execute(
      """
      INSERT INTO stats_cohort_segments (app_id, segment, grain, period, value, environment, currency, age, \(counters))
      SELECT app_id, 'none', grain, period, 'all', environment, currency, age, \(sums) FROM stats_cohort_segments
      WHERE segment = 'origin' GROUP BY app_id, grain, period, environment, currency, age;
      INSERT INTO stats_cohort_segments (app_id, segment, grain, period, value, environment, currency, age, \(counters))
      SELECT app_id, kept.segment, grain, period, value, environment, currency, age, \(counters)
      FROM stats_cohort_segments, (SELECT 'campaign' AS segment UNION ALL SELECT 'ad_group' UNION ALL SELECT 'keyword') kept
      WHERE stats_cohort_segments.segment = 'source' AND value = 'organic';
      DELETE FROM schema_migrations WHERE version = 28
      """)
    let added = try old.query(
      "SELECT COUNT(*) AS rows FROM stats_cohort_segments WHERE segment = 'none' OR value = 'organic'", [])
    #expect(try added.first?.decode("rows", as: Int64.self) ?? 0 > 3 * 20)
    old.close()
    let upgraded = try SQLiteStore(path: path)
    defer { upgraded.close() }
    #expect(try upgraded.rollupSnapshot(appId: app.id) == live)
  }

  @Test("the stats queries read the rollups over a day range", arguments: StoreFactory.available)
  func ranges(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "ranges")
    let viewer = "00000000-0000-4000-8000-000000000001"
    let buyer = "00000000-0000-4000-8000-000000000002"
    for id in [viewer, buyer] {
      _ = try store.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: F.date(0), updatedAt: F.date(0)))
    }
    let variation = "onboarding:default:standard"
    // Fixture days counted from the first UTC midnight after the fixtures' start.
    let day0 = StatsDay.of(F.date(0)) + 1
    let shift = (Double(day0) * 86_400 - F.start) / 86_400
    func view(_ profile: String, _ day: Double) throws {
      _ = try store.recordEvents(
        appId: app.id,
        [
          EventRecord(
            eventId: UUID().uuidString, profileId: profile, placementId: "onboarding", audienceId: "default",
            variationId: variation, flowId: "standard", receivedAt: F.date(shift + day))
        ])
    }
    try view(viewer, 0.5)
    try view(viewer, 2.5)
    try view(buyer, 1.5)
    // No variation named: credited to the flow the buyer saw 12 hours before.
    _ = try PurchaseRecorder(store).record(
      appId: app.id,
      AppStoreFacts(
        transactions: [
          StoredTransaction(payload: F.transaction("1000", purchased: shift + 2, expires: shift + 32), jws: "jws")
        ],
        claimant: buyer), at: F.date(shift + 2),
      derive: { PurchaseDerivation.derive($0, levels: F.levels, now: F.date(shift + 2)) })
    let all = try #require(
      try store.placementStats(appId: app.id, placementId: "onboarding", days: day0...(day0 + 10)).first)
    #expect(all.impressions == 3)
    #expect(all.viewers == 2)
    #expect(all.purchasers == 1)
    #expect(all.revenue["USD"] == MoneyFigures(gross: 9_990, refunded: 0, transactions: 1))
    let late = try #require(
      try store.placementStats(appId: app.id, placementId: "onboarding", days: (day0 + 2)...(day0 + 10)).first)
    #expect(late.impressions == 1)
    #expect(late.viewers == 0, "the viewer first saw it on day 0")
    #expect(late.purchasers == 1)
    #expect(try store.placementStats(appId: app.id, placementId: "onboarding", days: (day0 + 3)...(day0 + 10)).isEmpty)
  }

  @Test(
    "an earlier view of the same variation under another placement, and a transaction signed again at another price, agree live and rebuilt",
    arguments: StoreFactory.available)
  func firstDaysAndRepricedPayers(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "first days")
    let profile = "00000000-0000-4000-8000-000000000001"
    _ = try store.insertProfile(appId: app.id, ProfileRecord(id: profile, createdAt: F.date(0), updatedAt: F.date(0)))
    for (placement, day) in [("onboarding", 5.0), ("settings_upgrade", 3.0)] {
      _ = try store.recordEvents(
        appId: app.id,
        [
          EventRecord(
            eventId: UUID().uuidString, profileId: profile, placementId: placement, audienceId: "default",
            variationId: "shared", flowId: "standard", receivedAt: F.date(day))
        ])
    }
    let derive: (PurchaseHistory) -> ProfilePurchases = {
      PurchaseDerivation.derive($0, levels: F.levels, now: F.date(6))
    }
    let bought = F.transaction("1000", purchased: 5.5, expires: 35.5, price: 9_990)
    _ = try PurchaseRecorder(store).record(
      appId: app.id,
      AppStoreFacts(
        transactions: [StoredTransaction(payload: bought, jws: "jws", variationId: "shared")], claimant: profile),
      at: F.date(5.5), derive: derive)
    var repriced = bought
    repriced.signedDate += 3_600_000
    repriced.price = 4_990
    let fact = NotificationFact(type: "DID_RENEW", signedDate: repriced.signedDate, originalTransactionId: "1000")
    _ = try PurchaseRecorder(store).record(
      appId: app.id,
      AppStoreFacts(
        transactions: [StoredTransaction(payload: repriced, jws: "jws")],
        notification: StoredNotification(uuid: UUID().uuidString, fact: fact, payload: Data("{}".utf8), jws: "jws")),
      at: F.date(6), derive: derive)
    let live = try store.rollupSnapshot(appId: app.id)
    #expect(live.contains { $0.hasPrefix("stats_payers ") && $0.hasSuffix(" 4990") }, "\(live)")
    try store.rebuildRollups(appId: app.id)
    let rebuilt = try store.rollupSnapshot(appId: app.id)
    #expect(rebuilt == live)
    Self.recordDifference(live, "live", rebuilt, "rebuilt")
  }
}
