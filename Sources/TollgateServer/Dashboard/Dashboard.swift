import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The web console at `/dashboard`: `Resources/index.html`, `app.css` and the script (the
/// `.js` files there, in order, served as one `app.js`), compiled into the binary (`EmbeddedFiles`) —
/// no build step, no CDN — plus Chart.js from Debian's `libjs-chart.js`. People sign in with
/// their e-mail and password; the session is an HttpOnly cookie the page cannot read, and each
/// change carries the session's CSRF token. Every value from the server is put into the page with `textContent`, never as
/// HTML, and the page has no inline script or style, so the CSP needs no `unsafe-inline`.
/// Mounted beside the API router at `/dashboard` (`RoutingResponder.Mount`): these are files, not
/// API routes.
struct Dashboard: Sendable {
  /// Where Debian's `libjs-chart.js` installs Chart.js.
  static let chartPath = "/usr/share/javascript/chart.js/chart.min.js"
  /// Where Debian's `node-qrcode-generator` installs its browser script (two-factor set-up draws
  /// its QR code with it; without it the key is typed by hand).
  static let qrcodePath = "/usr/share/javascript/qrcode-generator/qrcode.js"

  /// Strict by construction: no inline script or style, nothing from another origin.
  static let contentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    + "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

  /// The console's script: its files in the order they build on each other.
  static let script = Data(
    EmbeddedFiles.core_js + EmbeddedFiles.paywall_js + EmbeddedFiles.reports_js + EmbeddedFiles.admin_js
      + EmbeddedFiles.builder_js + EmbeddedFiles.people_js)

  /// The Paywalls page's starter templates, by name.
  static let templates: [String: [UInt8]] = [
    "classic": EmbeddedFiles.template_classic_json, "cards": EmbeddedFiles.template_cards_json,
    "minimal": EmbeddedFiles.template_minimal_json,
  ]

  /// One file as served: bytes, type, caching and a content-hash ETag.
  struct File: Sendable {
    let body: Data
    let type: String
    let cache: String
    let etag: String

    init(_ body: Data, type: String, cache: String) {
      self.body = body
      self.type = type
      self.cache = cache
      etag = "\"" + Digest.hex(Digest.sha256(body)).prefix(32) + "\""
    }
  }

  private let files: [String: File]

  /// Hashes the files once; reads Chart.js once (without it the console still works, charts
  /// say they are missing).
  init(chartPath: String = Dashboard.chartPath, qrcodePath: String = Dashboard.qrcodePath) {
    // The page is never stored (it is the entry point); the rest is revalidated by ETag.
    let page = File(Data(EmbeddedFiles.index_html), type: "text/html; charset=utf-8", cache: "no-store")
    var files = [
      "/dashboard": page, "/dashboard/": page,
      "/dashboard/app.js": File(Self.script, type: "text/javascript; charset=utf-8", cache: "no-cache"),
      "/dashboard/app.css": File(
        Data(EmbeddedFiles.app_css), type: "text/css; charset=utf-8", cache: "no-cache"),
    ]
    for (name, template) in Self.templates {
      files["/dashboard/template-\(name).json"] = File(
        Data(template), type: "application/json; charset=utf-8", cache: "no-cache")
    }
    if let chart = FileManager.default.contents(atPath: chartPath) {
      files["/dashboard/chart.min.js"] = File(chart, type: "text/javascript; charset=utf-8", cache: "max-age=86400")
    }
    if let qrcode = FileManager.default.contents(atPath: qrcodePath) {
      files["/dashboard/qrcode.js"] = File(qrcode, type: "text/javascript; charset=utf-8", cache: "max-age=86400")
    }
    self.files = files
  }

  /// The answer for a path under `/dashboard` (the mount sends only those).
  func respond(to request: Request) -> Response {
    guard request.method == "GET" || request.method == "HEAD" else {
      var refused = DomainError(.methodNotAllowed, "The console's files are read with GET.").response
      refused.headers.append(("Allow", "GET"))
      return refused
    }
    guard let file = files[request.path] else {
      if request.path == "/dashboard/chart.min.js" {
        return DomainError(
          .chartNotInstalled, "Chart.js is not installed (Debian package libjs-chart.js)."
        ).response
      }
      return DomainError(.routeNotFound, "No console file \(request.path).").response
    }
    let headers = [
      ("Cache-Control", file.cache), ("Content-Security-Policy", Self.contentSecurityPolicy),
      ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
    ]
    return .conditional(request, etag: file.etag, headers: headers) {
      Response(status: 200, headers: [("Content-Type", file.type)], body: file.body)
    }
  }
}
