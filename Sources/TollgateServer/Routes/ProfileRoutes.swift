import Foundation
import TollgateAPI

extension Endpoints {
  func addProfileRoutes(to router: inout Router) {
    router.add(SDKRoute.createProfile) { [self] request in
      let caller = try auth.caller(for: request, needs: .publicKey)
      let appId = caller.appId
      let body = try decode(CreateProfileRequest.self, from: request)
      try Self.checkCustomerUserId(body.customerUserId)
      guard let uuid = UUID(uuidString: body.profileId) else {
        throw DomainError.validation([.init(path: "$.profile_id", message: "must be a UUID")])
      }
      let token = try body.appleAdsToken.map { try Self.validToken($0, path: "$.apple_ads_token") }
      let now = time.now()
      // A customer user id another profile carries is that customer: a reinstall or a second
      // device gets the same profile, and so the same access.
      if let customer = body.customerUserId,
        try store.profile(appId: appId, id: uuid.uuidString.lowercased()) == nil,
        let existing = try store.profile(appId: appId, customerUserId: customer)
      {
        return .json(Self.payload(try handOver(token, caller: caller, profile: existing)), status: 200)
      }
      let (profile, created) = try store.insertProfile(
        appId: appId,
        ProfileRecord(
          id: uuid.uuidString.lowercased(), customerUserId: body.customerUserId,
          install: body.install ?? InstallMeta(), createdAt: now, updatedAt: now))
      return .json(Self.payload(try handOver(token, caller: caller, profile: profile)), status: created ? 201 : 200)
    }

    router.add(SDKRoute.profile) { [self] request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let profile = try existingProfile(appId: appId, id: request.parameter("profileId"))
      if let wait = try AttributionWait(request, cap: maxWaitSeconds) {
        let id = profile.id
        let answer: @Sendable () -> Response = { [self] in
          respond { .json(Self.payload(try existingProfile(appId: appId, id: id))) }
        }
        return waits.wait(
          .init(appId: appId, profileId: id), seconds: wait.seconds,
          attempt: { [self] in respond { try attributionSettled(appId: appId, id: id) ? answer() : nil } },
          timeUp: answer)
      }
      return .conditional(request, etag: "\"v\(profile.version)\"") { .json(Self.payload(profile)) }
    }

    router.add(SDKRoute.updateProfile) { [self] request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let body = try decode(UpdateProfileRequest.self, from: request)
      try Self.checkCustomerUserId(body.customerUserId)
      let id = try existingProfile(appId: appId, id: request.parameter("profileId")).id
      if let customer = body.customerUserId, let owner = try store.profile(appId: appId, customerUserId: customer),
        owner.id != id
      {
        throw DomainError(
          .customerUserIdTaken,
          "Profile \(owner.id) carries customer user id \(customer); create a profile with it to get that profile.")
      }
      let updated = try store.updateProfile(appId: appId, id: id, at: time.now()) { profile in
        let before = profile
        if let changes = body.customAttributes {
          profile.customAttributes = try CustomAttributes.apply(changes, to: profile.customAttributes).get()
        }
        if let customerUserId = body.customerUserId { profile.customerUserId = customerUserId }
        if let install = body.install { profile.install.merge(install) }
        return profile != before
      }
      guard let updated else { throw Self.profileNotFound(id) }
      return .json(Self.payload(updated))
    }
  }

  /// The profile, or 404 `profile_not_found` (also for ids that are not UUIDs). A profile
  /// whose access lapsed by the clock alone (an expiry with no notification yet), or whose
  /// access levels were reconfigured, is re-derived first, so the change gets its own version.
  func existingProfile(appId: Int64, id: String) throws -> ProfileRecord {
    guard let uuid = UUID(uuidString: id),
      let profile = try store.profile(appId: appId, id: uuid.uuidString.lowercased())
    else { throw Self.profileNotFound(id) }
    let config = profile.purchases.hasPurchases ? try configs.entry(appId: appId)?.config : nil
    let lapsed = profile.purchases.nextChangeAt.map { $0 <= time.now() } ?? false
    // Access levels reconfigured since these purchases were derived: derive them again.
    let reconfigured = config.map { profile.purchases.levelsKey != PurchaseDerivation.key($0.accessLevels) } ?? false
    if lapsed || reconfigured {
      let derive = derivation(config)
      if let changed = try store.rederivePurchases(
        appId: appId, profileId: profile.id, at: time.now(), webhooks: config?.webhooks ?? [], derive: derive)
      {
        announce([changed], appId: appId)
        return changed
      }
    }
    return profile
  }

  /// A customer user id names a customer: an empty one names nobody and is refused (422).
  static func checkCustomerUserId(_ id: String?) throws(DomainError) {
    if id?.isEmpty == true {
      throw DomainError.validation([.init(path: "$.customer_user_id", message: "must not be empty")])
    }
  }

  static func profileNotFound(_ id: String) -> DomainError {
    .notFound(.profileNotFound, "No profile \(id) in this app; create it with POST /v1/sdk/profiles.")
  }

  static func payload(_ profile: ProfileRecord) -> ProfilePayload {
    ProfilePayload(
      id: profile.id, version: profile.version, customerUserId: profile.customerUserId,
      install: profile.install, customAttributes: profile.customAttributes,
      appliedAttributionSources: profile.appliedSources,
      createdAt: Timestamp.string(profile.createdAt), updatedAt: Timestamp.string(profile.updatedAt),
      attributionStatus: profile.attribution.status.isEmpty ? nil : profile.attribution.status,
      purchases: profile.purchases.payload)
  }
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
