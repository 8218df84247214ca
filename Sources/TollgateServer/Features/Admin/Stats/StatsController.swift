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
    router.add("GET", "/v1/admin/stats/placements/{placementId}", needs: .reportsRead, auth) { request, caller in
      let appId = caller.appId
      return try fresh {
        try stats.placementReport(
          appId: appId, placementId: request.parameter("placementId"), from: request.query["from"],
          to: request.query["to"])
      }
    }

    router.add("GET", "/v1/admin/stats/placements/{placementId}/days", needs: .reportsRead, auth) { request, caller in
      let appId = caller.appId
      return try fresh {
        try stats.placementDays(
          appId: appId, placementId: request.parameter("placementId"), from: request.query["from"],
          to: request.query["to"])
      }
    }

    router.add("GET", "/v1/admin/stats/apple-ads", needs: .reportsRead, auth) { request, caller in
      let appId = caller.appId
      return try fresh {
        try stats.appleAdsReport(
          appId: appId, from: request.query["from"], to: request.query["to"], by: request.query["by"],
          environment: request.query["environment"])
      }
    }

    router.add("GET", "/v1/admin/stats/subscriptions", needs: .reportsRead, auth) { request, caller in
      let appId = caller.appId
      return try fresh {
        try stats.subscriptionReport(
          appId: appId, from: request.query["from"], to: request.query["to"], parameters: request.query.dictionary)
      }
    }

    router.add("GET", "/v1/admin/stats/cohorts", needs: .reportsRead, auth) { request, caller in
      let appId = caller.appId
      return try fresh {
        try stats.cohortReport(
          appId: appId, from: request.query["from"], to: request.query["to"], parameters: request.query.dictionary)
      }
    }

    router.add("GET", "/v1/admin/overview", needs: .overviewRead, auth) { request, caller in
      return try fresh { try stats.overview(appId: caller.appId, requestsByClass: metrics.requestsByClass) }
    }
  }

  /// A report as JSON; with a read replica, `X-Tollgate-As-Of` says which state of the primary it
  /// reflects and `X-Tollgate-Read-From` where it was read (`replica` or `primary`).
  private func fresh<T: Encodable>(_ report: () throws -> T) throws -> Response {
    let (value, freshness) = try stats.reports.noting(report)
    var response = Response.json(value)
    if let freshness {
      response.headers.append(("X-Tollgate-As-Of", Timestamp.string(freshness.asOf)))
      response.headers.append(("X-Tollgate-Read-From", freshness.replica ? "replica" : "primary"))
    }
    return response
  }
}
