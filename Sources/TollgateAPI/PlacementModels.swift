/// Which placement answered, for which audience, at which configuration revision.
public struct PlacementInfo: Codable, Sendable, Hashable {
  /// The placement id from the configuration.
  public var id: String
  /// The app's configuration revision that produced this answer.
  public var revision: Int64
  /// The audience that matched (`default` for the placement's default flow).
  public var audienceId: String
  /// The audience's display name (`All Users` for the default).
  public var audienceName: String
  /// The A/B test's name when the flow came from an experiment.
  public var abTestName: String?

  /// Creates placement info.
  public init(
    id: String, revision: Int64, audienceId: String, audienceName: String, abTestName: String?
  ) {
    self.id = id
    self.revision = revision
    self.audienceId = audienceId
    self.audienceName = audienceName
    self.abTestName = abTestName
  }

  enum CodingKeys: String, CodingKey {
    case id, revision
    case audienceId = "audience_id"
    case audienceName = "audience_name"
    case abTestName = "ab_test_name"
  }
}

/// A flow's remote config in one locale.
public struct RemoteConfigPayload: Codable, Sendable, Hashable {
  /// The locale whose config this is (after fallback: exact, language, `en`, first).
  public var locale: String
  /// The JSON the developer configured.
  public var data: JSONValue

  /// Creates a remote config payload.
  public init(locale: String, data: JSONValue) {
    self.locale = locale
    self.data = data
  }
}

/// The flow (paywall) chosen for a profile.
public struct FlowPayload: Codable, Sendable, Hashable {
  /// The flow id from the configuration.
  public var id: String
  /// The flow's display name.
  public var name: String
  /// Identifies the variation shown; events carry it back.
  public var variationId: String
  /// Vendor product ids, in order.
  public var products: [String]
  /// Remote config for the chosen locale, if the flow has any.
  public var remoteConfig: RemoteConfigPayload?
  /// The flow's paywall document (`PaywallDocument`, all its locales), if it has one.
  public var paywall: JSONValue?

  /// Creates a flow payload.
  public init(
    id: String, name: String, variationId: String, products: [String],
    remoteConfig: RemoteConfigPayload?, paywall: JSONValue? = nil
  ) {
    self.id = id
    self.name = name
    self.variationId = variationId
    self.products = products
    self.remoteConfig = remoteConfig
    self.paywall = paywall
  }

  enum CodingKeys: String, CodingKey {
    case id, name, products, paywall
    case variationId = "variation_id"
    case remoteConfig = "remote_config"
  }
}

/// `GET /v1/sdk/placements/{id}/flow` and `/default`.
public struct PlacementFlowResponse: Codable, Sendable, Hashable {
  /// The placement and audience.
  public var placement: PlacementInfo
  /// The flow.
  public var flow: FlowPayload
  /// The profile as it stood when the flow was chosen; only on a request that waited for
  /// attribution (`wait_for`), so the first launch needs no separate long poll.
  public var profile: ProfilePayload?

  /// Creates a response.
  public init(placement: PlacementInfo, flow: FlowPayload, profile: ProfilePayload? = nil) {
    self.placement = placement
    self.flow = flow
    self.profile = profile
  }
}

/// The fallback file: every placement's default flow in every locale, loaded by the SDK's
/// `setFallback(fileURL:)` when the network fails.
///
/// Readers accept any `format_version` up to the one they know and ignore unknown keys.
public struct FallbackFile: Codable, Sendable, Hashable {
  /// The format version this build writes.
  public static let currentFormatVersion = 1

  /// A placement's default flow.
  public struct Placement: Codable, Sendable, Hashable {
    /// The placement id.
    public var id: String
    /// Always the default audience.
    public var audienceName: String
    /// The default flow.
    public var flow: Flow

    /// Creates a placement entry.
    public init(id: String, audienceName: String, flow: Flow) {
      self.id = id
      self.audienceName = audienceName
      self.flow = flow
    }

    enum CodingKeys: String, CodingKey {
      case id, flow
      case audienceName = "audience_name"
    }
  }

  /// A flow with its remote config in every configured locale.
  public struct Flow: Codable, Sendable, Hashable {
    /// The flow id.
    public var id: String
    /// The flow's display name.
    public var name: String
    /// The variation id the server would report for it.
    public var variationId: String
    /// Vendor product ids.
    public var products: [String]
    /// Remote config by locale.
    public var remoteConfigs: [String: JSONValue]
    /// The paywall document, if the flow has one: the bundled fallback shows the design offline.
    public var paywall: JSONValue?

    /// Creates a flow entry.
    public init(
      id: String, name: String, variationId: String, products: [String],
      remoteConfigs: [String: JSONValue], paywall: JSONValue? = nil
    ) {
      self.id = id
      self.name = name
      self.variationId = variationId
      self.products = products
      self.remoteConfigs = remoteConfigs
      self.paywall = paywall
    }

    enum CodingKeys: String, CodingKey {
      case id, name, products, paywall
      case variationId = "variation_id"
      case remoteConfigs = "remote_configs"
    }
  }

  /// The format version of this file.
  public var formatVersion: Int
  /// The app's configuration revision it was made from.
  public var revision: Int64
  /// When it was made, ISO 8601.
  public var generatedAt: String
  /// Every placement, sorted by id.
  public var placements: [Placement]
  /// Images the documents reference, base64 by SHA-256: the small ones, up to the export's
  /// size budget (`FallbackFile.assetBudget`); a larger one is downloaded when online.
  public var assets: [String: String]?

  /// The default budget of embedded images, in bytes before base64.
  public static let assetBudget = 512 * 1024

  /// Creates a fallback file.
  public init(
    formatVersion: Int, revision: Int64, generatedAt: String, placements: [Placement], assets: [String: String]? = nil
  ) {
    self.formatVersion = formatVersion
    self.revision = revision
    self.generatedAt = generatedAt
    self.placements = placements
    self.assets = assets
  }

  enum CodingKeys: String, CodingKey {
    case revision, placements, assets
    case formatVersion = "format_version"
    case generatedAt = "generated_at"
  }
}
