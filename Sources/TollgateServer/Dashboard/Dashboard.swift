import Foundation

/// The web console at `/dashboard`: a page, a script and a style sheet, embedded in the
/// binary (no build step, no CDN), plus Chart.js from Debian's `libjs-chart.js`. It talks to
/// the admin API with the secret key the user pastes (kept in `sessionStorage`, sent as the
/// Bearer header). Served outside the API router: these are files, not API routes.
struct Dashboard: Sendable {
  /// Where Debian's `libjs-chart.js` installs Chart.js.
  static let chartPath = "/usr/share/javascript/chart.js/chart.min.js"

  /// Strict by construction: no inline script or style, nothing from another origin.
  static let contentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    + "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

  private let chart: Data?

  /// Reads Chart.js once; without it the console still works, charts say they are missing.
  init(chartPath: String = Dashboard.chartPath) {
    chart = FileManager.default.contents(atPath: chartPath)
  }

  /// The answer for a `/dashboard` path, or nil when the path is not the console's.
  func response(for request: Request) -> Response? {
    guard request.path == "/dashboard" || request.path.hasPrefix("/dashboard/") else { return nil }
    guard request.method == "GET" || request.method == "HEAD" else {
      var refused = HTTPError(405, "method_not_allowed", "The console's files are read with GET.").response
      refused.headers.append(("Allow", "GET"))
      return refused
    }
    switch request.path {
    case "/dashboard", "/dashboard/":
      return Self.file(Data(DashboardAssets.page.utf8), type: "text/html; charset=utf-8", cache: "no-store")
    case "/dashboard/app.js":
      return Self.file(Data(DashboardAssets.script.utf8), type: "text/javascript; charset=utf-8", cache: "no-cache")
    case "/dashboard/app.css":
      return Self.file(Data(DashboardAssets.style.utf8), type: "text/css; charset=utf-8", cache: "no-cache")
    case "/dashboard/chart.min.js":
      guard let chart else {
        return HTTPError(
          404, "chart_not_installed", "Chart.js is not installed (Debian package libjs-chart.js)."
        ).response
      }
      return Self.file(chart, type: "text/javascript; charset=utf-8", cache: "max-age=86400")
    default:
      return HTTPError(404, "route_not_found", "No console file \(request.path).").response
    }
  }

  private static func file(_ body: Data, type: String, cache: String) -> Response {
    Response(
      status: 200,
      headers: [
        ("Content-Type", type), ("Cache-Control", cache), ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
      ], body: body)
  }
}
