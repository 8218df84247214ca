import Foundation
import TollgateAPI

/// What the SDK keeps about its profile across launches.
struct ProfileState: Codable, Sendable, Hashable {
  /// The id this install uses (generated on first launch).
  var profileId: String
  /// The customer user id the profile should carry.
  var customerUserId: String?
  /// The last profile the server returned.
  var profile: AdaptyProfile?
  /// Its ETag, for cheap revalidation.
  var etag: String?
  /// Whether the server has confirmed that the profile exists.
  var created: Bool

  static func fresh(customerUserId: String?) -> ProfileState {
    ProfileState(profileId: UUID().uuidString.lowercased(), customerUserId: customerUserId, created: false)
  }
}

/// Owns the profile: creates it on the server once, refreshes it, applies changes, and
/// publishes every new version through the broadcaster.
actor ProfileManager {
  private var state: ProfileState
  private let client: BackendClient
  private let store: LocalStore
  private let installInfo: InstallInfo
  let broadcaster: ProfileBroadcaster
  private var creation: Task<Void, any Error>?
  /// The AdServices token to hand over with the creation request, when one is coming.
  private var creationToken: Task<String?, Never>?
  /// Whether the creation request carried the token and the server took it: then the
  /// collector does not send it again.
  private(set) var tokenHandedOver = false
  /// The Apple Ads status of the last profile the server returned this session.
  private(set) var appleAdsStatus: AttributionStatus?

  init(
    client: BackendClient, store: LocalStore, installInfo: InstallInfo, broadcaster: ProfileBroadcaster,
    customerUserId: String?
  ) {
    self.client = client
    self.store = store
    self.installInfo = installInfo
    self.broadcaster = broadcaster
    var state = store.read(ProfileState.self, from: StoredFile.profile) ?? .fresh(customerUserId: customerUserId)
    if let customerUserId, state.customerUserId != customerUserId {
      // Another user on this install: start a profile of theirs.
      state = .fresh(customerUserId: customerUserId)
    }
    self.state = state
    store.write(state, to: StoredFile.profile)
  }

  var profileId: String { state.profileId }
  var cachedProfile: AdaptyProfile? { state.profile }

  /// Publishes the cached profile, if any (called at activation, before any network).
  func publishCached() async {
    if let profile = state.profile { await broadcaster.publish(profile) }
  }

  /// The profile id once the server knows it, creating the profile if needed. Concurrent
  /// callers share one request.
  func ensureCreated() async throws(AdaptyError) -> String {
    if state.created { return state.profileId }
    let task: Task<Void, any Error>
    if let creation {
      task = creation
    } else {
      let id = state.profileId
      var body = CreateProfileRequest(profileId: id, customerUserId: state.customerUserId, install: installInfo.wire)
      let client = client
      let token = creationToken
      task = Task { [weak self] in
        body.appleAdsToken = await token?.value
        let payload: ProfilePayload
        do {
          payload = try await client.createProfile(body)
          if body.appleAdsToken != nil { await self?.markTokenHandedOver() }
        } catch let failure as BackendClient.Failure
          where body.appleAdsToken != nil && failure.error.adaptyErrorCode == .badRequest
        {
          // The token alone was refused: the profile must still exist; the collector decides about the token.
          body.appleAdsToken = nil
          payload = try await client.createProfile(body)
        }
        // The server answers with the profile that already carries this customer user id
        // (a reinstall, another device): this install adopts it.
        await self?.adopt(payload.id, requested: id)
        await self?.apply(payload, etag: nil, created: true)
      }
      creation = task
    }
    do {
      try await task.value
    } catch let failure as BackendClient.Failure {
      creation = nil
      throw failure.error
    } catch {
      creation = nil
      throw AdaptyError(.unknown, "\(error)")
    }
    creation = nil
    return state.profileId
  }

  /// Makes the next creation request wait for `token` and carry it (first launch: one
  /// request creates the profile and hands over the attribution token).
  func expectAppleAdsToken(_ token: Task<String?, Never>) {
    guard !state.created, creation == nil else { return }
    creationToken = token
  }

  private func markTokenHandedOver() { tokenHandedOver = true }

  private func adopt(_ id: String, requested: String) {
    guard id != requested, state.profileId == requested else { return }
    Log.info("customer \(state.customerUserId ?? "") has profile \(id) already; this install uses it")
    state.profileId = id
    state.profile = nil
    state.etag = nil
    store.write(state, to: StoredFile.profile)
  }

  /// Takes a profile the server returned on another route (attribution).
  func accept(_ payload: ProfilePayload) async {
    await apply(payload, etag: nil, created: true)
  }

  /// The server lost the profile (404): create it again on next use.
  func markMissing() {
    state.created = false
    store.write(state, to: StoredFile.profile)
  }

  /// Fetches the latest profile (cheap when unchanged: 304).
  func refresh() async throws(AdaptyError) -> AdaptyProfile {
    let wasCreated = state.created
    let id = try await ensureCreated()
    // The creation's answer is the profile as the server has it now.
    if !wasCreated, let profile = state.profile { return profile }
    do {
      if let (payload, etag) = try await client.profile(id: id, etag: state.etag) {
        await apply(payload, etag: etag, created: true)
      }
    } catch {
      if error.code == .profileNotFound { markMissing() }
      throw error.error
    }
    if let profile = state.profile { return profile }
    throw AdaptyError(.unknown, "The server returned no profile.")
  }

  /// Sends profile changes and publishes the result.
  func update(_ body: UpdateProfileRequest) async throws(AdaptyError) -> AdaptyProfile {
    let id = try await ensureCreated()
    do {
      let payload = try await client.updateProfile(id: id, body)
      await apply(payload, etag: nil, created: true)
    } catch {
      if error.code == .profileNotFound { markMissing() }
      throw error.error
    }
    guard let profile = state.profile else { throw AdaptyError(.unknown, "The server returned no profile.") }
    return profile
  }

  /// Sets the customer user id: on a profile without one it is attached; a different one
  /// starts that user's own profile.
  func identify(_ customerUserId: String) async throws(AdaptyError) {
    guard !customerUserId.isEmpty else {
      throw AdaptyError(.wrongParam, "A customer user id must not be empty.")
    }
    if state.customerUserId == customerUserId { return }
    if state.customerUserId == nil && state.created {
      do {
        let payload = try await client.updateProfile(
          id: state.profileId, UpdateProfileRequest(customerUserId: customerUserId))
        await apply(payload, etag: nil, created: true)
        state.customerUserId = customerUserId
        store.write(state, to: StoredFile.profile)
        return
      } catch {
        // A 409: the customer has a profile already, which this install switches to (below).
        guard error.code == .customerUserIdTaken else {
          if error.code == .profileNotFound { markMissing() }
          throw error.error
        }
      }
    }
    replace(with: .fresh(customerUserId: customerUserId))
    _ = try await ensureCreated()
  }

  /// Starts a new anonymous profile.
  func logout() async throws(AdaptyError) {
    replace(with: .fresh(customerUserId: nil))
    _ = try await ensureCreated()
  }

  private func replace(with fresh: ProfileState) {
    creation = nil
    state = fresh
    store.write(state, to: StoredFile.profile)
  }

  /// Keeps a server answer when it is for this profile and not older than what we have.
  private func apply(_ payload: ProfilePayload, etag: String?, created: Bool) async {
    guard payload.id == state.profileId else { return }
    state.created = state.created || created
    let profile = AdaptyProfile(payload)
    if let current = state.profile, current.version > profile.version { return }
    state.profile = profile
    appleAdsStatus = payload.attributionStatus?["apple_ads"]
    state.etag = etag ?? "\"v\(profile.version)\""
    store.write(state, to: StoredFile.profile)
    await broadcaster.publish(profile)
  }
}

extension AdaptyProfile {
  init(_ payload: ProfilePayload) {
    var attributes: [String: AdaptyCustomAttributeValue] = [:]
    for (key, value) in payload.customAttributes {
      switch value {
      case .string(let text): attributes[key] = .string(text)
      case .int, .double: attributes[key] = .number(value.numberValue ?? 0)
      default: continue
      }
    }
    self.init(
      profileId: payload.id, customerUserId: payload.customerUserId, customAttributes: attributes,
      appliedExternalAttributionProviders: payload.appliedAttributionSources.map(
        AdaptyExternalAttributionProvider.init),
      version: payload.version,
      accessLevels: payload.accessLevels.mapValues(AccessLevel.init),
      subscriptions: payload.subscriptions.mapValues(Subscription.init),
      nonSubscriptions: payload.nonSubscriptions.mapValues { $0.map(NonSubscription.init) })
  }
}

/// Wire timestamps (ISO 8601 with fractional seconds) as dates; a malformed one is the epoch
/// rather than a failed profile.
private func date(_ text: String) -> Date {
  (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
    ?? (try? Date.ISO8601FormatStyle().parse(text)) ?? Date(timeIntervalSince1970: 0)
}

extension AdaptyProfile.AccessLevel {
  init(_ wire: AccessLevelPayload) {
    self.init(
      id: wire.id, isActive: wire.isActive, vendorProductId: wire.vendorProductId,
      vendorTransactionId: wire.vendorTransactionId, vendorOriginalTransactionId: wire.vendorOriginalTransactionId,
      store: wire.store, activatedAt: date(wire.activatedAt), renewedAt: wire.renewedAt.map(date),
      expiresAt: wire.expiresAt.map(date), isLifetime: wire.isLifetime, willRenew: wire.willRenew,
      isInGracePeriod: wire.isInGracePeriod, unsubscribedAt: wire.unsubscribedAt.map(date),
      billingIssueDetectedAt: wire.billingIssueDetectedAt.map(date), isRefund: wire.isRefund,
      activeIntroductoryOfferType: wire.activeIntroductoryOfferType)
  }
}

extension AdaptyProfile.Subscription {
  init(_ wire: SubscriptionPayload) {
    self.init(
      vendorProductId: wire.vendorProductId, vendorTransactionId: wire.vendorTransactionId,
      vendorOriginalTransactionId: wire.vendorOriginalTransactionId, store: wire.store, state: wire.state.rawValue,
      isActive: wire.isActive, activatedAt: date(wire.activatedAt), renewedAt: wire.renewedAt.map(date),
      expiresAt: wire.expiresAt.map(date), willRenew: wire.willRenew, isInGracePeriod: wire.isInGracePeriod,
      unsubscribedAt: wire.unsubscribedAt.map(date), billingIssueDetectedAt: wire.billingIssueDetectedAt.map(date),
      isRefund: wire.isRefund, expirationReason: wire.expirationReason, isSandbox: wire.isSandbox,
      isFamilyShared: wire.isFamilyShared, isTrial: wire.isTrial,
      activeIntroductoryOfferType: wire.activeIntroductoryOfferType)
  }
}

extension AdaptyProfile.NonSubscription {
  init(_ wire: NonSubscriptionPayload) {
    self.init(
      vendorProductId: wire.vendorProductId, vendorTransactionId: wire.vendorTransactionId, store: wire.store,
      purchasedAt: date(wire.purchasedAt), isConsumable: wire.isConsumable, isRefund: wire.isRefund,
      isSandbox: wire.isSandbox)
  }
}
