import Foundation

/// `POST /v1/sdk/profiles/{id}/attribution/apple-ads`: the AdServices token, as the app got it.
public struct AppleAdsTokenRequest: Codable, Sendable, Hashable {
  /// The token from `AAAttribution.attributionToken()`; valid 24 h.
  public var token: String

  /// Creates a request.
  public init(token: String) { self.token = token }
}

/// The state of one attribution source for a profile.
public enum AttributionStatus: String, Codable, Sendable, Hashable {
  /// The server is still asking Apple (retries included).
  case pending
  /// Apple attributed the install; the source is on the profile, permanently.
  case applied
  /// Apple answered that the install is not attributed to a campaign.
  case notAttributed = "not_attributed"
  /// Apple rejected the token (400): sending it again will not help.
  case invalid
  /// Retries ran out (Apple kept answering 404 or failing).
  case failed
  /// Developer-mode (test) attribution, which this app's configuration does not apply.
  case testIgnored = "test_ignored"

  /// Whether the outcome is final.
  public var isFinal: Bool { self != .pending }
}

/// The 202 answer while the server is still resolving a token.
public struct AttributionPendingResponse: Codable, Sendable, Hashable {
  /// Always `pending`.
  public var status: AttributionStatus
  /// The profile as it is now (without the source yet).
  public var profile: ProfilePayload

  /// Creates the answer.
  public init(status: AttributionStatus = .pending, profile: ProfilePayload) {
    self.status = status
    self.profile = profile
  }
}

/// Apple's attribution answer (`POST https://api-adservices.apple.com/api/v1/`), with
/// Apple's own camelCase keys.
public struct AppleAdsPayload: Codable, Sendable, Hashable {
  /// Whether the install is attributed to an Apple Ads campaign.
  public var attribution: Bool
  public var orgId: Int64?
  public var campaignId: Int64?
  public var adGroupId: Int64?
  /// Absent for search-match installs.
  public var keywordId: Int64?
  public var adId: Int64?
  public var countryOrRegion: String?
  /// `Download`, `Redownload` or `PreOrder`.
  public var conversionType: String?
  public var claimType: String?
  /// Apple's format has no seconds: `2024-10-08T17:17Z`; see `AppleAdsDate`.
  public var clickDate: String?

  /// Creates a payload.
  public init(
    attribution: Bool, orgId: Int64? = nil, campaignId: Int64? = nil, adGroupId: Int64? = nil,
    keywordId: Int64? = nil, adId: Int64? = nil, countryOrRegion: String? = nil, conversionType: String? = nil,
    claimType: String? = nil, clickDate: String? = nil
  ) {
    self.attribution = attribution
    self.orgId = orgId
    self.campaignId = campaignId
    self.adGroupId = adGroupId
    self.keywordId = keywordId
    self.adId = adId
    self.countryOrRegion = countryOrRegion
    self.conversionType = conversionType
    self.claimType = claimType
    self.clickDate = clickDate
  }

  /// Developer-mode tokens get fake ids `1234567890`.
  public var isDeveloperMode: Bool {
    [orgId, campaignId, adGroupId].contains(1_234_567_890)
  }
}

/// Apple's click dates: `2024-10-08T17:17Z` (no seconds), also accepted with seconds,
/// fractions or an offset.
public enum AppleAdsDate {
  /// The instant, or nil when the text is not one of Apple's forms.
  public static func parse(_ text: String) -> Date? {
    formatters.parse(text)
  }

  /// One formatter per form, made once: making them per call (ICU loads a calendar and a
  /// pattern each time) was a tenth of the server's time while it ingested attribution tokens.
  private static let formatters = Formatters()

  private final class Formatters: @unchecked Sendable {
    /// Formatters are not safe to use from two threads at once.
    private let lock = NSLock()
    private let forms: [DateFormatter] = [
      "yyyy-MM-dd'T'HH:mmXXXXX", "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX",
    ].map { pattern in
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = TimeZone(identifier: "UTC")
      formatter.dateFormat = pattern
      return formatter
    }

    func parse(_ text: String) -> Date? {
      lock.lock()
      defer { lock.unlock() }
      for formatter in forms {
        if let date = formatter.date(from: text) { return date }
      }
      return nil
    }
  }
}
