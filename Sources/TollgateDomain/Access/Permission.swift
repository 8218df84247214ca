/// What a route needs. Every admin route declares one in the route table; a person's role or
/// a key's scope grants a set of them.
public enum Permission: String, CaseIterable, Sendable, Codable {
  /// The app's name and the overview page.
  case overviewRead = "overview:read"
  /// Placement, subscription, cohort and Apple Ads reports.
  case reportsRead = "reports:read"
  /// Integration status: App Store Server API, Apple Ads import, profile imports, refund requests.
  case integrationsRead = "integrations:read"
  /// The configuration and its history.
  case configRead = "config:read"
  /// Applying or rolling back a configuration, saved lists, paywall assets.
  case configWrite = "config:write"
  /// Profiles and their activity.
  case profilesRead = "profiles:read"
  /// Granting and revoking access, redelivering webhooks, order lookup, refreshing a history.
  case support = "support"
  /// App Store and Apple Ads credentials, profile imports, test notifications, recovery.
  case integrationsWrite = "integrations:write"
  /// Admin keys.
  case keysWrite = "keys:write"
  /// Webhook signing secrets.
  case webhooksWrite = "webhooks:write"
  /// The audit log.
  case auditRead = "audit:read"
  /// People and their roles.
  case peopleWrite = "people:write"
}
