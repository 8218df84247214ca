import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `GET /v1/admin/stats/placements/{placementId}`, `…/days`, `GET /v1/admin/stats/apple-ads`,
/// `GET /v1/admin/stats/subscriptions`, `GET /v1/admin/stats/cohorts` and `GET /v1/admin/overview`.
struct StatsController: Sendable {
  let auth: Authenticator
  let stats: StatsService
  /// This server's request counters, for the overview.
  let metrics: Metrics

  func register(on router: inout Router) {
    router.add("GET", "/v1/admin/stats/placements/{placementId}") { request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      return .json(
        try stats.placementReport(
          appId: appId, placementId: request.parameter("placementId"), from: request.query["from"],
          to: request.query["to"]))
    }

    router.add("GET", "/v1/admin/stats/placements/{placementId}/days") { request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      return .json(
        try stats.placementDays(
          appId: appId, placementId: request.parameter("placementId"), from: request.query["from"],
          to: request.query["to"]))
    }

    router.add("GET", "/v1/admin/stats/apple-ads") { request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      return .json(
        try stats.appleAdsReport(
          appId: appId, from: request.query["from"], to: request.query["to"], by: request.query["by"],
          environment: request.query["environment"]))
    }

    router.add("GET", "/v1/admin/stats/subscriptions") { request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      return .json(
        try stats.subscriptionReport(
          appId: appId, from: request.query["from"], to: request.query["to"], parameters: request.query.dictionary))
    }

    router.add("GET", "/v1/admin/stats/cohorts") { request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      return .json(
        try stats.cohortReport(
          appId: appId, from: request.query["from"], to: request.query["to"], parameters: request.query.dictionary))
    }

    router.add("GET", "/v1/admin/overview") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      return .json(try stats.overview(appId: caller.appId, requestsByClass: metrics.requestsByClass))
    }
  }
}
