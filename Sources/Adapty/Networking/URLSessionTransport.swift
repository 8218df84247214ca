import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `HTTPTransport` over URLSession (libcurl on Linux).
struct URLSessionTransport: HTTPTransport {
  let baseURL: URL
  let session: URLSession
  /// Per-request limit; `getFlow`'s own `loadTimeout` is usually shorter.
  let requestTimeout: TimeInterval

  init(baseURL: URL, requestTimeout: TimeInterval = 30) {
    self.baseURL = baseURL
    self.requestTimeout = requestTimeout
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = requestTimeout
    session = URLSession(configuration: configuration)
  }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
      throw TransportError(description: "invalid backend URL \(baseURL)")
    }
    components.path =
      components.path.hasSuffix("/")
      ? String(components.path.dropLast()) + request.path
      : components.path + request.path
    if !request.query.isEmpty {
      components.queryItems = request.query.sorted { $0.key < $1.key }.map {
        URLQueryItem(name: $0.key, value: $0.value)
      }
    }
    guard let url = components.url else { throw TransportError(description: "invalid path \(request.path)") }
    var urlRequest = URLRequest(url: url, timeoutInterval: requestTimeout)
    urlRequest.httpMethod = request.method
    urlRequest.httpBody = request.body
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }

    let box = TaskBox()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
        let task = session.dataTask(with: urlRequest) { data, response, error in
          if let error {
            let cancelled = (error as? URLError)?.code == .cancelled
            continuation.resume(throwing: cancelled ? CancellationError() : TransportError(description: "\(error)"))
            return
          }
          guard let http = response as? HTTPURLResponse else {
            continuation.resume(throwing: TransportError(description: "no HTTP response"))
            return
          }
          var headers: [String: String] = [:]
          for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
          continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
        }
        box.set(task)
        task.resume()
      }
    } onCancel: {
      box.cancel()
    }
  }
}

/// Holds the running task so a cancellation arriving from another thread can stop it.
private final class TaskBox: @unchecked Sendable {
  private let lock = NSLock()
  private var task: URLSessionDataTask?
  private var cancelled = false

  func set(_ task: URLSessionDataTask) {
    lock.lock()
    self.task = task
    let cancelNow = cancelled
    lock.unlock()
    if cancelNow { task.cancel() }
  }

  func cancel() {
    lock.lock()
    cancelled = true
    let task = self.task
    lock.unlock()
    task?.cancel()
  }
}
