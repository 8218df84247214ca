import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Single sign-on's browser routes: `GET /v1/console/sso` (whether the sign-in page shows the
/// button), `GET /v1/console/sso/start` (to the provider) and `GET /v1/console/sso/callback`
/// (back from it). Both navigations end in a `303` to the console: with a session cookie, or
/// with `#sso_error=CODE` that the sign-in page explains; the reason goes to the log.
struct SingleSignOnController: Sendable {
  /// The cookie that binds a sign-in to the browser that began it.
  static let stateCookie = "tollgate_sso_state"
  /// Where the console is, relative to the public URL.
  static let consolePath = "/dashboard/"

  let service: SingleSignOnService
  let logger: Logger
  /// Proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
  let trustedProxies: Set<String>
  /// `--public-url`: the redirect URI is built on it (else on the request's host).
  let publicURL: String?

  /// `GET /v1/console/sso`.
  struct Availability: Codable, Sendable {
    var enabled: Bool
    var label: String?
  }

  func register(on router: inout Router) {
    router.add("GET", "/v1/console/sso") { _ in
      let settings = try service.settings()?.settings
      return .json(Availability(enabled: settings != nil, label: settings?.label))
    }
    router.add("GET", "/v1/console/sso/start") { request in
      let redirectURI = base(request) + "/v1/console/sso/callback"
      let secure = isSecure(request)
      let deferred = DeferredResponse()
      let (service, logger) = (service, logger)
      Task {
        do throws(SingleSignOnRefusal) {
          let started = try await service.begin(redirectURI: redirectURI)
          var response = Response(status: 303, headers: [("Location", started.location)])
          // Lax, not Strict: the provider's redirect back is a cross-site navigation.
          response.headers.append(
            (
              "Set-Cookie",
              ConsoleSessions.cookie(Self.stateCookie, started.state, maxAge: 600, path: "/v1/console/sso", secure)
            ))
          response.headers.append(("Cache-Control", "no-store"))
          _ = deferred.complete(response)
        } catch {
          logger.warn("single sign-on: cannot begin: \(error.reason)")
          _ = deferred.complete(Self.refused(error.code, consoleURL: base(request) + Self.consolePath, secure: secure))
        }
      }
      return .deferred(deferred)
    }
    router.add("GET", "/v1/console/sso/callback") { request in
      let callback = SingleSignOnService.Callback(
        code: request.query["code"], state: request.query["state"], error: request.query["error"],
        cookie: request.cookie(Self.stateCookie), address: request.address(trusting: trustedProxies))
      let console = base(request) + Self.consolePath
      let secure = isSecure(request)
      let deferred = DeferredResponse()
      let (service, logger) = (service, logger)
      Task {
        do throws(SingleSignOnRefusal) {
          let opened = try await service.finish(callback)
          logger.info("single sign-on: \(opened.person.email) signed in from \(callback.address)")
          var response = Response(status: 303, headers: [("Location", console), ("Cache-Control", "no-store")])
          response.headers.append(
            ("Set-Cookie", ConsoleSessions.cookie(Self.stateCookie, "", maxAge: 0, path: "/v1/console/sso", secure)))
          response.headers.append(
            (
              "Set-Cookie",
              ConsoleSessions.cookie(
                ConsoleSessions.cookieName, opened.id, maxAge: Int(service.sessions?.policy.absolute ?? 0), path: "/",
                secure, sameSite: "Strict")
            ))
          _ = deferred.complete(response)
        } catch {
          logger.warn("single sign-on from \(callback.address) refused (\(error.code.rawValue)): \(error.reason)")
          _ = deferred.complete(Self.refused(error.code, consoleURL: console, secure: secure))
        }
      }
      return .deferred(deferred)
    }
  }

  /// The public URL, else the request's own scheme and host.
  private func base(_ request: Request) -> String {
    if let publicURL {
      return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
    }
    return (isSecure(request) ? "https://" : "http://") + (request.header("host") ?? "127.0.0.1")
  }

  private func isSecure(_ request: Request) -> Bool {
    publicURL?.lowercased().hasPrefix("https://") == true || request.isSecure(trusting: trustedProxies)
  }

  /// Back to the console's sign-in page, which explains `code`.
  static func refused(_ code: SingleSignOnRefusal.Code, consoleURL: String, secure: Bool) -> Response {
    Response(
      status: 303,
      headers: [
        ("Location", consoleURL + "#sso_error=" + code.rawValue), ("Cache-Control", "no-store"),
        ("Set-Cookie", ConsoleSessions.cookie(stateCookie, "", maxAge: 0, path: "/v1/console/sso", secure)),
      ])
  }
}
