import Dispatch
import Foundation
import Synchronization
import TollgateAPI
import TollgateCommandLine

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `tollgate access grant|revoke`: access levels given by hand. A profile lives in the running
/// server's memory as well as in the database, so these go through the server's admin API
/// (`--server`, `TOLLGATE_SERVER_URL`) with a secret key (`TOLLGATE_SECRET_KEY`).
enum AccessCommands {
  static func grant(_ options: inout Options) throws {
    guard let profile = options.positional(), let level = options.positional() else {
      throw Failure("access grant needs a PROFILE_ID and an ACCESS_LEVEL")
    }
    let reason = try options.required("--reason")
    let expires = options.value("--expires", env: nil)
    let lifetime = options.flag("--lifetime")
    guard (expires == nil) == lifetime else { throw Failure("give --expires TIME or --lifetime (one of them)") }
    var body: [String: Any] = ["reason": reason]
    if let expires { body["expires_at"] = expires } else { body["lifetime"] = true }
    let answer = try send(
      &options, path: "/v1/admin/profiles/\(profile)/access-levels/\(level)/grant",
      body: try JSONSerialization.data(withJSONObject: body))
    let grant = (answer["grants"] as? [[String: Any]])?.first ?? [:]
    let until = (grant["expires_at"] as? String).map { "until " + $0 } ?? "for life"
    print(
      "granted \(level) to \(profile) \(until) (grant \(grant["id"] ?? "")); the SDK sees it on its next profile fetch")
  }

  static func revoke(_ options: inout Options) throws {
    guard let profile = options.positional(), let level = options.positional() else {
      throw Failure("access revoke needs a PROFILE_ID and an ACCESS_LEVEL")
    }
    let answer = try send(
      &options, path: "/v1/admin/profiles/\(profile)/access-levels/\(level)/revoke", body: Data("{}".utf8))
    let count = (answer["grants"] as? [Any])?.count ?? 0
    print("took back \(count) grant(s) of \(level) from \(profile)")
  }

  /// POSTs to the running server; its JSON answer, or its error's message as the failure.
  static func send(_ options: inout Options, path: String, body: Data) throws -> [String: Any] {
    let server = options.value("--server", env: "TOLLGATE_SERVER_URL") ?? "http://127.0.0.1:8080"
    guard let key = options.value("--key", env: "TOLLGATE_SECRET_KEY") else {
      throw Failure("a secret key is needed: --key tg_sec_… or TOLLGATE_SECRET_KEY (tollgate keys create --app NAME)")
    }
    try options.finish()
    guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https" else {
      throw Failure("--server takes the server's http(s) URL")
    }
    var request = URLRequest(url: base.appendingPathComponent(path))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
    request.httpBody = body
    request.timeoutInterval = 30
    let result = Mutex<(Data?, Int, String?)>((nil, 0, nil))
    let done = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: request) { data, response, error in
      result.withLock { $0 = (data, (response as? HTTPURLResponse)?.statusCode ?? 0, error?.localizedDescription) }
      done.signal()
    }.resume()
    done.wait()
    let (data, status, transport) = result.withLock { $0 }
    if let transport, status == 0 {
      throw Failure(
        "no Tollgate server answers at \(server) (\(transport)); start it with tollgate serve, or pass --server")
    }
    let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    guard (200..<300).contains(status) else {
      let error = json["error"] as? [String: Any]
      let details = (error?["details"] as? [[String: Any]] ?? []).map {
        "\($0["path"] ?? ""): \($0["message"] ?? "")"
      }
      throw Failure(
        "the server answered \(status) \(error?["code"] ?? ""): \(error?["message"] ?? "")"
          + (details.isEmpty ? "" : " (" + details.joined(separator: "; ") + ")"))
    }
    return json
  }
}
