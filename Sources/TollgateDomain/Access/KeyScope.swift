/// What an admin key may do: a machine gets the least it needs (a BI tool `reports:read`, a
/// deploy job `config:write`). A key's scopes grant the union of their permissions.
public enum KeyScope: String, CaseIterable, Sendable, Codable {
  /// Every report and the configuration they name things by.
  case reportsRead = "reports:read"
  /// The configuration: read, apply, roll back, saved lists, paywall images.
  case configWrite = "config:write"
  /// Profiles and their activity.
  case profilesRead = "profiles:read"
  /// What support does: profiles, grants, order lookup, redelivery.
  case support
  /// Everything an owner's key could do but people (the secret keys made before scopes).
  case all

  /// What this scope allows.
  public var permissions: Set<Permission> {
    switch self {
    case .reportsRead: return [.overviewRead, .reportsRead, .integrationsRead, .configRead]
    case .configWrite: return [.overviewRead, .configRead, .configWrite]
    case .profilesRead: return [.overviewRead, .profilesRead]
    case .support: return [.overviewRead, .configRead, .profilesRead, .support]
    case .all: return Set(Permission.allCases)
    }
  }

  /// The permissions of several scopes together.
  public static func permissions(_ scopes: [KeyScope]) -> Set<Permission> {
    scopes.reduce(into: Set<Permission>()) { $0.formUnion($1.permissions) }
  }
}
