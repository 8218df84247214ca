import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The rules of profiles: created once per id (a known customer user id brings its profile
/// back), changed in one transaction with a new version, and read with purchases derived
/// again when access lapsed by the clock or the access levels were reconfigured.
final class ProfileService: Sendable {
  let profileRecords: any ProfileRepository
  let assignments: any AssignmentRepository
  let eventLog: any EventRepository
  let purchases: any PurchaseRepository
  /// Re-derives purchases that lapsed by the clock.
  let recorder: PurchaseRecorder
  /// Where placements read profiles (the cache's packed views, when there is one).
  let views: any TargetingViewRepository
  let configs: ConfigCache
  let time: any TimeSource
  /// Told of every profile this service changed, so waiting long polls re-check.
  let changed: @Sendable (_ profiles: [ProfileRecord], _ appId: Int64) -> Void

  init(
    profileRecords: any ProfileRepository, assignments: any AssignmentRepository, eventLog: any EventRepository,
    purchases: any PurchaseRepository, views: any TargetingViewRepository, configs: ConfigCache, time: any TimeSource,
    changed: @escaping @Sendable ([ProfileRecord], Int64) -> Void
  ) {
    self.profileRecords = profileRecords
    self.assignments = assignments
    self.eventLog = eventLog
    self.purchases = purchases
    self.recorder = PurchaseRecorder(purchases)
    self.views = views
    self.configs = configs
    self.time = time
    self.changed = changed
  }

  /// Creates the profile, or returns the one with this id or — for a new id — the oldest
  /// profile carrying this customer user id (a reinstall or a second device is that
  /// customer: same profile, same access). `created` is true for a new row.
  func create(appId: Int64, _ body: CreateProfileRequest) throws -> (profile: ProfileRecord, created: Bool) {
    try Self.checkCustomerUserId(body.customerUserId)
    guard let uuid = UUID(uuidString: body.profileId) else {
      throw DomainError.validation([.init(path: "$.profile_id", message: "must be a UUID")])
    }
    // A token sent with the creation must be one before anything is created.
    if let token = body.appleAdsToken { _ = try AppleAdsTokens.valid(token, path: "$.apple_ads_token") }
    let id = uuid.uuidString.lowercased()
    if let customer = body.customerUserId, try profileRecords.profile(appId: appId, id: id) == nil,
      let existing = try profileRecords.profile(appId: appId, customerUserId: customer)
    {
      return (existing, false)
    }
    let now = time.now()
    return try profileRecords.insertProfile(
      appId: appId,
      ProfileRecord(
        id: id, customerUserId: body.customerUserId, install: body.install ?? InstallMeta(), createdAt: now,
        updatedAt: now))
  }

  /// What resolving a placement needs of the profile, or 404 `profile_not_found`: its packed
  /// view for `schema`, unless its purchases must be derived again (then through `existing`).
  func targeting(appId: Int64, id: String, schema: TargetingSchema) throws -> TargetingView {
    guard let canonical = ProfileId.canonical(id) else { throw Self.notFound(id) }
    if let view = try views.targetingView(appId: appId, id: canonical, schema: schema),
      view.isCurrent(at: time.now())
    {
      return view
    }
    return TargetingView(profile: try existing(appId: appId, id: id), schema: schema)
  }

  /// The profile, or 404 `profile_not_found` (also for ids that are not UUIDs). A profile
  /// whose access lapsed by the clock alone (an expiry with no notification yet), or whose
  /// access levels were reconfigured, is re-derived first, so the change gets its own version.
  func existing(appId: Int64, id: String) throws -> ProfileRecord {
    guard let canonical = ProfileId.canonical(id), let profile = try profileRecords.profile(appId: appId, id: canonical)
    else { throw Self.notFound(id) }
    // Purchases or hand-given grants were derived under access levels (`levelsKey`).
    let derived = profile.purchases.hasPurchases || profile.purchases.levelsKey != nil
    let config = derived ? try configs.entry(appId: appId)?.config : nil
    let lapsed = profile.purchases.nextChangeAt.map { $0 <= time.now() } ?? false
    // Access levels reconfigured since these purchases were derived: derive them again.
    let reconfigured = config.map { profile.purchases.levelsKey != PurchaseDerivation.key($0.accessLevels) } ?? false
    if lapsed || reconfigured {
      if let rederived = try recorder.rederive(
        appId: appId, profileId: profile.id, at: time.now(), webhooks: config?.webhooks ?? [],
        derive: derivation(config))
      {
        changed([rederived], appId)
        return rederived
      }
    }
    return profile
  }

  /// Applies custom attributes (all or nothing), a customer user id (409 when another profile
  /// carries it) and install meta; a change gets a new version.
  func update(appId: Int64, id: String, _ body: UpdateProfileRequest) throws -> ProfileRecord {
    try Self.checkCustomerUserId(body.customerUserId)
    let id = try existing(appId: appId, id: id).id
    if let customer = body.customerUserId,
      let owner = try profileRecords.profile(appId: appId, customerUserId: customer),
      owner.id != id
    {
      throw DomainError(
        .customerUserIdTaken,
        "Profile \(owner.id) carries customer user id \(customer); create a profile with it to get that profile.")
    }
    let updated = try profileRecords.updateProfile(appId: appId, id: id, at: time.now()) { profile in
      let before = profile
      if let changes = body.customAttributes {
        profile.customAttributes = try CustomAttributes.apply(changes, to: profile.customAttributes).get()
      }
      if let customerUserId = body.customerUserId { profile.customerUserId = customerUserId }
      if let install = body.install { profile.install.merge(install) }
      return profile != before
    }
    guard let updated else { throw Self.notFound(id) }
    return updated
  }

  /// Up to 20 profiles carrying the customer user id, oldest first, each read as `existing` does.
  func profiles(appId: Int64, customerUserId: String) throws -> [ProfileRecord] {
    guard !customerUserId.isEmpty else { throw DomainError(.badParameter, "customer_user_id is required.") }
    return try profileRecords.profileIds(appId: appId, customerUserId: customerUserId, limit: 20).map {
      try existing(appId: appId, id: $0)
    }
  }

  /// What a profile did: its transactions, A/B assignments and latest flows shown.
  func activity(appId: Int64, id: String) throws -> ProfileActivity {
    let profile = try existing(appId: appId, id: id)
    return ProfileActivity(
      profile: profile, transactions: try purchases.transactions(appId: appId, profileId: profile.id),
      assignments: try assignments.assignments(appId: appId, profileId: profile.id),
      events: try eventLog.recentEvents(appId: appId, profileId: profile.id, limit: 50),
      notifications: try purchases.notifications(appId: appId, profileId: profile.id),
      grants: try purchases.grants(appId: appId, profileId: profile.id),
      refundRequests: try purchases.refundRequests(appId: appId, profileId: profile.id), now: time.now())
  }

  /// How purchases are derived under `config` now.
  func derivation(_ config: CompiledConfig?) -> (PurchaseHistory) -> ProfilePurchases {
    let levels = config?.accessLevels ?? []
    let now = time.now()
    return { PurchaseDerivation.derive($0, levels: levels, now: now) }
  }

  /// A customer user id names a customer: an empty one names nobody, and one holding a NUL
  /// would be stored cut short at it (the stores take text up to a NUL), so both are refused (422).
  static func checkCustomerUserId(_ id: String?) throws(DomainError) {
    if id?.isEmpty == true {
      throw DomainError.validation([.init(path: "$.customer_user_id", message: "must not be empty")])
    }
    if id?.unicodeScalars.contains("\u{0}") == true {
      throw DomainError.validation([.init(path: "$.customer_user_id", message: "must not hold a NUL character")])
    }
  }

  static func notFound(_ id: String) -> DomainError {
    .notFound(.profileNotFound, "No profile \(id) in this app; create it with POST /v1/sdk/profiles.")
  }
}

/// A profile with what it did, for the admin activity view.
struct ProfileActivity: Sendable {
  let profile: ProfileRecord
  let transactions: [StoredTransaction]
  let assignments: [AssignmentRow]
  let events: [EventRow]
  let notifications: [NotificationLine]
  let grants: [AccessGrant]
  let refundRequests: [StoredRefundRequest]
  let now: Date
}

extension InstallMeta {
  /// Takes every field `newer` has; keeps the rest.
  mutating func merge(_ newer: InstallMeta) {
    appVersion = newer.appVersion ?? appVersion
    osVersion = newer.osVersion ?? osVersion
    deviceModel = newer.deviceModel ?? deviceModel
    locale = newer.locale ?? locale
    storeCountry = newer.storeCountry ?? storeCountry
    sdkVersion = newer.sdkVersion ?? sdkVersion
  }
}
