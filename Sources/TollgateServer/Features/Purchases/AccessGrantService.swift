import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// An access level given by hand, as the admin API shows it.
public struct AccessGrantPayload: Codable, Sendable, Hashable {
  public var id: Int64
  public var accessLevelId: String
  public var grantedAt: String
  /// Nil: lifetime.
  public var expiresAt: String?
  public var isLifetime: Bool
  public var reason: String
  public var grantedBy: String
  public var revokedAt: String?
  public var revokedBy: String?
  /// Whether it unlocks its level now.
  public var isActive: Bool

  enum CodingKeys: String, CodingKey {
    case id, reason
    case accessLevelId = "access_level_id"
    case grantedAt = "granted_at"
    case expiresAt = "expires_at"
    case isLifetime = "is_lifetime"
    case grantedBy = "granted_by"
    case revokedAt = "revoked_at"
    case revokedBy = "revoked_by"
    case isActive = "is_active"
  }

  init(_ grant: AccessGrant, now: Date) {
    id = grant.id
    accessLevelId = grant.accessLevel
    grantedAt = Timestamp.string(grant.grantedAt)
    expiresAt = grant.expiresAt.map(Timestamp.string)
    isLifetime = grant.expiresAt == nil
    reason = grant.reason
    grantedBy = grant.grantedBy
    revokedAt = grant.revokedAt.map(Timestamp.string)
    revokedBy = grant.revokedBy
    isActive = grant.isActive(at: now)
  }
}

/// What a grant or a revocation answers: the grants and the profile as the SDK now sees it.
public struct AccessGrantAnswer: Codable, Sendable {
  public var grants: [AccessGrantPayload]
  public var profile: ProfilePayload
}

/// Support's hand: gives a profile an access level (promotional, until a date or for life,
/// with a reason) or takes a given one back. The profile's access levels are derived again at
/// once (the SDK sees the change on its next profile fetch), the change is audited, and
/// webhooks get `access_level.granted` / `access_level.revoked`.
final class AccessGrantService: Sendable {
  let apps: any AppRepository
  let recorder: PurchaseRecorder
  let configs: ConfigCache
  let profiles: ProfileService
  let webhooks: WebhookWorker
  let time: any TimeSource

  init(
    apps: any AppRepository, purchases: any PurchaseRepository, configs: ConfigCache, profiles: ProfileService,
    webhooks: WebhookWorker, time: any TimeSource
  ) {
    self.apps = apps
    self.recorder = PurchaseRecorder(purchases)
    self.configs = configs
    self.profiles = profiles
    self.webhooks = webhooks
    self.time = time
  }

  /// The grant body: `reason`, and `expires_at` (ISO 8601, in the future) or `lifetime: true`.
  struct GrantBody: Decodable {
    var reason: String?
    var expiresAt: String?
    var lifetime: Bool?

    enum CodingKeys: String, CodingKey {
      case reason, lifetime
      case expiresAt = "expires_at"
    }
  }

  func grant(appId: Int64, profileId: String, accessLevel: String, _ body: GrantBody, by actor: String) throws
    -> AccessGrantAnswer
  {
    let config = try level(appId: appId, accessLevel)
    let now = time.now()
    var problems: [APIError.Detail] = []
    let reason = body.reason?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    if !(1...500).contains(reason.count) {
      problems.append(.init(path: "$.reason", message: "why it is given, 1–500 characters (kept in the audit log)"))
    }
    var expires: Date?
    switch (body.expiresAt, body.lifetime ?? false) {
    case (nil, true): break
    case (let text?, false):
      if let date = Self.date(text), date > now {
        expires = date
      } else {
        problems.append(
          .init(path: "$.expires_at", message: "an ISO 8601 time in the future, e.g. 2027-01-31T00:00:00Z"))
      }
    default:
      problems.append(.init(path: "$.expires_at", message: "give expires_at or lifetime: true (one of them)"))
    }
    guard problems.isEmpty else { throw DomainError.validation(problems) }
    guard
      let (grant, profile) = try recorder.grant(
        appId: appId, profileId: profileId, accessLevel: accessLevel, expiresAt: expires, reason: reason, by: actor,
        at: now, webhooks: config.webhooks, derive: profiles.derivation(config))
    else { throw ProfileService.notFound(profileId) }
    profiles.changed([profile], appId)
    if !config.webhooks.isEmpty { webhooks.kick() }
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: now, actor: actor, action: "access_level.granted",
        detail: AuditDetail.json([
          "profile_id": .string(profileId), "access_level_id": .string(accessLevel), "grant_id": .int(grant.id),
          "expires_at": expires.map { .string(Timestamp.string($0)) } ?? .null, "reason": .string(reason),
        ])))
    return AccessGrantAnswer(grants: [AccessGrantPayload(grant, now: now)], profile: ProfilePayload(profile))
  }

  func revoke(appId: Int64, profileId: String, accessLevel: String, by actor: String) throws -> AccessGrantAnswer {
    let config = try level(appId: appId, accessLevel)
    let now = time.now()
    guard
      let (revoked, profile) = try recorder.revoke(
        appId: appId, profileId: profileId, accessLevel: accessLevel, by: actor, at: now, webhooks: config.webhooks,
        derive: profiles.derivation(config))
    else { throw ProfileService.notFound(profileId) }
    guard !revoked.isEmpty else {
      throw DomainError.notFound(
        .grantNotFound,
        "Profile \(profileId) has no standing grant of \(accessLevel) (purchases are refunded at Apple).")
    }
    profiles.changed([profile], appId)
    if !config.webhooks.isEmpty { webhooks.kick() }
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: now, actor: actor, action: "access_level.revoked",
        detail: AuditDetail.json([
          "profile_id": .string(profileId), "access_level_id": .string(accessLevel),
          "grant_ids": .array(revoked.map { .int($0.id) }),
        ])))
    return AccessGrantAnswer(grants: revoked.map { AccessGrantPayload($0, now: now) }, profile: ProfilePayload(profile))
  }

  /// The configuration, when it has this access level; else 404 `access_level_not_found`.
  private func level(appId: Int64, _ accessLevel: String) throws -> CompiledConfig {
    guard let config = try configs.entry(appId: appId)?.config else {
      throw DomainError.notFound(.configNotFound, "This app has no configuration yet.")
    }
    guard config.accessLevels.contains(where: { $0.id == accessLevel }) else {
      throw DomainError.notFound(
        .accessLevelNotFound,
        "No access level \(accessLevel) in the configuration (it has \(config.accessLevels.map(\.id).sorted().joined(separator: ", ")))."
      )
    }
    return config
  }

  static func date(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
  }
}
