/// A person's role in one app: what they may do there. A person may hold different roles in
/// different apps.
public enum Role: String, CaseIterable, Sendable, Codable, Comparable {
  /// Everything, people included.
  case owner
  /// Keys, webhooks, credentials and configuration: everything but people.
  case admin
  /// Configuration, paywalls, experiments and saved lists, with the reports to judge them.
  case editor
  /// Profiles, order lookup, granting and revoking access, redelivering webhooks.
  case support
  /// Every report, with integration status.
  case analyst
  /// The overview and reports; no profile data.
  case viewer

  /// What this role may do.
  public var permissions: Set<Permission> {
    switch self {
    case .owner: return Set(Permission.allCases)
    case .admin: return Set(Permission.allCases).subtracting([.peopleWrite])
    case .editor: return [.overviewRead, .reportsRead, .configRead, .configWrite]
    case .support: return [.overviewRead, .configRead, .profilesRead, .support]
    case .analyst: return [.overviewRead, .reportsRead, .integrationsRead, .configRead]
    case .viewer: return [.overviewRead, .reportsRead, .configRead]
    }
  }

  /// Whether this role may do `permission`.
  public func allows(_ permission: Permission) -> Bool { permissions.contains(permission) }

  /// Roles by power: an owner before a viewer.
  public static func < (left: Role, right: Role) -> Bool {
    allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
  }
}
