import Foundation
import TollgateAPI

/// Revenue of one period on the overview.
struct RevenuePeriod: Codable, Sendable {
  var period: String
  var from: String
  var to: String
  /// Purchases and renewals.
  var transactions: Int64
  /// By currency, in the currency's units.
  var revenue: [String: MoneyReport]
  /// In the reporting currency, when the configuration names one.
  var reporting: ConvertedMoney?
}

/// `GET /v1/admin/stats/placements/{id}/days`: the experiment chart's series.
struct PlacementDaysPayload: Codable, Sendable {
  var placementId: String
  var from: String
  var to: String
  var days: [VariationDay]

  enum CodingKeys: String, CodingKey {
    case from, to, days
    case placementId = "placement_id"
  }
}

/// `GET /v1/admin/profiles/{id}/activity`: what the console's profile page shows beside the profile.
struct ProfileActivityPayload: Codable, Sendable {
  struct AppleAds: Codable, Sendable {
    var payload: AppleAdsPayload
    var test: Bool
    var resolvedAt: String

    enum CodingKeys: String, CodingKey {
      case payload, test
      case resolvedAt = "resolved_at"
    }
  }

  struct Transaction: Codable, Sendable {
    var transactionId: String
    var originalTransactionId: String
    var productId: String
    var type: String
    var reason: String?
    var purchasedAt: String
    var expiresAt: String?
    var revokedAt: String?
    /// In the currency's units.
    var price: Double?
    var currency: String?
    var environment: String
    var variationId: String?

    enum CodingKeys: String, CodingKey {
      case type, reason, price, currency, environment
      case transactionId = "transaction_id"
      case originalTransactionId = "original_transaction_id"
      case productId = "product_id"
      case purchasedAt = "purchased_at"
      case expiresAt = "expires_at"
      case revokedAt = "revoked_at"
      case variationId = "variation_id"
    }
  }

  var profileId: String
  var attributionStatus: [String: AttributionStatus]
  var appleAds: AppleAds?
  var assignments: [AssignmentRow]
  var transactions: [Transaction]
  var events: [EventRow]

  enum CodingKeys: String, CodingKey {
    case assignments, transactions, events
    case profileId = "profile_id"
    case attributionStatus = "attribution_status"
    case appleAds = "apple_ads"
  }
}

extension Endpoints {
  /// The console's reads that no other client needs: revenue and funnel for the overview, an
  /// experiment's daily series, profile search and a profile's activity.
  func addConsoleRoutes(to router: inout Router) {
    router.add("GET", "/v1/admin/stats/placements/{placementId}/days") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      let placementId = request.parameter("placementId")
      let days = try ReportRange.days(from: request.query["from"], to: request.query["to"], now: time.now())
      let rows = try store.placementDays(appId: appId, placementId: placementId, days: days)
      guard try configs.entry(appId: appId)?.config.placements[placementId] != nil || !rows.isEmpty else {
        throw Self.placementNotFound(placementId)
      }
      return .json(
        PlacementDaysPayload(
          placementId: placementId, from: PlacementReport.isoDay(days.lowerBound),
          to: PlacementReport.isoDay(days.upperBound), days: rows))
    }

    router.add("GET", "/v1/admin/profiles") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      guard let customerUserId = request.query["customer_user_id"], !customerUserId.isEmpty else {
        throw DomainError(.badParameter, "customer_user_id is required.")
      }
      // Read through existingProfile: lapsed or reconfigured access levels are derived again.
      let ids = try store.profileIds(appId: appId, customerUserId: customerUserId, limit: 20)
      return .json(["profiles": try ids.map { Self.payload(try existingProfile(appId: appId, id: $0)) }])
    }

    router.add("GET", "/v1/admin/profiles/{profileId}/activity") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      let profile = try existingProfile(appId: appId, id: request.parameter("profileId"))
      let transactions = try store.transactions(appId: appId, profileId: profile.id).map { stored in
        let payload = stored.payload
        return ProfileActivityPayload.Transaction(
          transactionId: payload.transactionId, originalTransactionId: payload.originalTransactionId,
          productId: payload.productId, type: payload.type, reason: payload.transactionReason,
          purchasedAt: Self.time(milliseconds: payload.purchaseDate),
          expiresAt: payload.expiresDate.map(Self.time(milliseconds:)),
          revokedAt: payload.revocationDate.map(Self.time(milliseconds:)),
          price: payload.price.map { Double($0) / 1000 }, currency: payload.currency,
          environment: payload.environment, variationId: stored.variationId)
      }
      return .json(
        ProfileActivityPayload(
          profileId: profile.id, attributionStatus: profile.attribution.status,
          appleAds: profile.attribution.appleAds.map {
            .init(payload: $0.payload, test: $0.test, resolvedAt: Timestamp.string($0.resolvedAt))
          },
          assignments: try store.assignments(appId: appId, profileId: profile.id), transactions: transactions,
          events: try store.recentEvents(appId: appId, profileId: profile.id, limit: 50)))
    }
  }

  /// Purchases and revenue today, over the last 7 and the last 30 UTC days.
  func revenuePeriods(appId: Int64, reporting: ReportingSettings?) throws -> [RevenuePeriod] {
    let today = StatsDay.of(time.now())
    let periods: [(String, Int64)] = [("today", 1), ("7_days", 7), ("30_days", 30)]
    return try periods.map { name, length in
      let days = (today - length + 1)...today
      let totals = try store.revenueTotals(appId: appId, days: days)
      let revenue = totals.mapValues {
        MoneyReport(
          gross: Double($0.gross) / 1000, refunded: Double($0.refunded) / 1000, transactions: $0.transactions)
      }
      let transactions = totals.values.reduce(0) { $0 + $1.transactions }
      return RevenuePeriod(
        period: name, from: PlacementReport.isoDay(days.lowerBound), to: PlacementReport.isoDay(days.upperBound),
        transactions: transactions, revenue: revenue,
        // Purchasers are not counted per period: no ARPPU here.
        reporting: reporting?.convert(
          gross: revenue.mapValues(\.gross), refunded: revenue.mapValues(\.refunded), viewers: nil, purchasers: 0))
    }
  }

  static func time(milliseconds: Int64) -> String {
    Timestamp.string(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
  }
}
