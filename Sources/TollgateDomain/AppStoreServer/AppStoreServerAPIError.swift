import Foundation
import TollgateSupport

/// What went wrong calling the App Store Server API, by what a job does about it.
public enum AppStoreServerAPIError: Error, Sendable, Hashable, CustomStringConvertible {
  /// 401/403, or no usable key: stop until the credentials change.
  case credentials(String)
  /// 429 (`4290000`): call again at `until` (Apple's `Retry-After`, a UNIX time in
  /// milliseconds), or back off when it is absent.
  case rateLimited(until: Date?, String)
  /// 5xx, `5000001`, a timeout, no connection: try again later.
  case unavailable(String)
  /// Apple refuses the request itself (4xx with an `errorCode`, such as an expired pagination
  /// token or a start date older than 180 days).
  case rejected(code: Int?, String)
  /// An answer that is not in Apple's format.
  case unexpected(String)

  public var description: String {
    switch self {
    case .credentials(let text), .unavailable(let text), .unexpected(let text): text
    case .rateLimited(_, let text), .rejected(_, let text): text
    }
  }
}

/// One page of Get Notification History.
public struct NotificationHistoryPage: Decodable, Sendable, Hashable {
  /// One notification as Apple keeps it: the signed payload it sent (or tried to).
  public struct Item: Decodable, Sendable, Hashable {
    public var signedPayload: String

    /// An item of a page.
    public init(signedPayload: String) { self.signedPayload = signedPayload }
  }

  public var notificationHistory: [Item]
  public var hasMore: Bool
  public var paginationToken: String?

  public init(notificationHistory: [Item], hasMore: Bool, paginationToken: String?) {
    self.notificationHistory = notificationHistory
    self.hasMore = hasMore
    self.paginationToken = paginationToken
  }
}

/// The body of Get Notification History: a window of at most Apple's 180 days.
public struct NotificationHistoryRequest: Codable, Sendable, Hashable {
  /// Milliseconds since 1970.
  public var startDate: Int64
  public var endDate: Int64

  public init(startDate: Int64, endDate: Int64) {
    self.startDate = startDate
    self.endDate = endDate
  }

  /// How far back Apple keeps notifications.
  public static let retention: TimeInterval = 180 * 86_400
}
