import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST /v1/admin/imports` (NDJSON, streamed, up to 1 GiB), `GET /v1/admin/imports` (the
/// latest imports and the switch-over day), `GET /v1/admin/imports/{importId}` (an import
/// with every refusal) and `GET
/// /v1/admin/history-import` (the histories fetched from Apple, counted).
struct ProfileImportController: Sendable {
  static let path = "/v1/admin/imports"

  let auth: Authenticator
  let imports: ProfileImportService
  let histories: HistoryImporter

  /// Where import bodies are streamed into the import instead of collected.
  var streamedRoute: StreamedBodyRoute {
    let (auth, imports) = (auth, imports)
    return StreamedBodyRoute(method: "POST", pathPrefix: Self.path, limit: ProfileImportUpload.maximumBytes) {
      request in ProfileImportUpload(request: request, auth: auth, imports: imports)
    }
  }

  func register(on router: inout Router) {
    router.add("POST", Self.path, needs: .integrationsWrite, auth) { request, caller in
      let reading =
        request.upload as? ProfileImportUpload.Reading
        ?? {
          // Handed over whole (tests, a server without streaming): read the same way.
          let sink = ProfileImportUpload(request: request, auth: auth, imports: imports)
          request.body.withUnsafeBytes { raw in sink.append(raw.bindMemory(to: UInt8.self)) }
          return sink.reading()
        }()
      switch reading {
      case .summary(let summary): return .json(summary, status: 201)
      case .problem(let error): throw error
      case .unauthorized: _ = try auth.caller(for: request, needs: Permission.integrationsWrite)
      }
      throw DomainError(.internalError, "the import was read without a caller")
    }
    router.add("GET", Self.path, needs: .reportsRead, auth) { request, caller in
      .json(try imports.overview(appId: caller.appId))
    }
    router.add("GET", "/v1/admin/imports/{importId}", needs: .integrationsRead, auth) { request, caller in
      let appId = caller.appId
      guard let id = Int64(request.parameter("importId")) else {
        throw DomainError.notFound(.importNotFound, "No profile import \(request.parameter("importId")).")
      }
      return .json(try imports.summary(appId: appId, id: id))
    }
    router.add("GET", "/v1/admin/history-import", needs: .integrationsRead, auth) { request, caller in
      .json(try histories.progress(appId: caller.appId))
    }
  }
}
