import Foundation
import TollgateSupport

/// `app_store.refund_requests`: whether Tollgate answers Apple's refund requests
/// (`CONSUMPTION_REQUEST`) with Send Consumption Information, and what it says. Off unless
/// configured; never sent unless the app's terms record the customer's consent.
public struct RefundRequestSettings: Sendable, Hashable {
  /// Answer at all.
  public var answer: Bool
  /// The app's terms record the customer's consent to share consumption data.
  public var customerConsent: Bool
  /// The app offers a free sample or trial of the content.
  public var sampleContentProvided: Bool
  /// `DECLINE`, `GRANT_FULL`, `GRANT_PRORATED`, or nil (no preference sent).
  public var preference: String?

  /// The preferences Apple accepts, as configured (lower case) and as sent.
  public static let preferences = [
    "decline": "DECLINE", "grant_full": "GRANT_FULL", "grant_prorated": "GRANT_PRORATED",
  ]

  public init(answer: Bool, customerConsent: Bool, sampleContentProvided: Bool = false, preference: String? = nil) {
    self.answer = answer
    self.customerConsent = customerConsent
    self.sampleContentProvided = sampleContentProvided
    self.preference = preference
  }
}

/// The body of Send Consumption Information (`PUT /inApps/v2/transactions/consumption/{id}`).
public struct ConsumptionInformation: Codable, Sendable, Hashable {
  public var customerConsented: Bool
  public var sampleContentProvided: Bool
  /// `DELIVERED` or one of Apple's `UNDELIVERED_…` values.
  public var deliveryStatus: String
  /// Milliunits (0…100 000); never for an auto-renewable subscription.
  public var consumptionPercentage: Int?
  public var refundPreference: String?

  public init(
    customerConsented: Bool, sampleContentProvided: Bool, deliveryStatus: String, consumptionPercentage: Int? = nil,
    refundPreference: String? = nil
  ) {
    self.customerConsented = customerConsented
    self.sampleContentProvided = sampleContentProvided
    self.deliveryStatus = deliveryStatus
    self.consumptionPercentage = consumptionPercentage
    self.refundPreference = refundPreference
  }
}

/// What Tollgate does with one refund request: answer it, or record why not.
public enum RefundRequestAnswer: Sendable, Hashable {
  /// Send this body before the deadline.
  case send(ConsumptionInformation)
  /// Recorded, never sent: `off` (not configured) or `no_consent`.
  case notSent(String)

  /// How long Apple waits for an answer after its request.
  public static let deadline: TimeInterval = 12 * 3_600

  /// The rule: nothing without `answer` and the customer's consent; the content counts as
  /// delivered when a profile owned the purchase (Tollgate unlocked it); a consumption
  /// percentage only for what is not an auto-renewable subscription and was not delivered (0,
  /// as Apple requires); the configured preference.
  public static func decide(settings: RefundRequestSettings?, productType: String, delivered: Bool)
    -> RefundRequestAnswer
  {
    guard let settings, settings.answer else { return .notSent("off") }
    guard settings.customerConsent else { return .notSent("no_consent") }
    return .send(
      ConsumptionInformation(
        customerConsented: true, sampleContentProvided: settings.sampleContentProvided,
        deliveryStatus: delivered ? "DELIVERED" : "UNDELIVERED_OTHER",
        consumptionPercentage: !delivered && productType != TransactionPayload.autoRenewable ? 0 : nil,
        refundPreference: settings.preference.flatMap { RefundRequestSettings.preferences[$0] }))
  }
}
