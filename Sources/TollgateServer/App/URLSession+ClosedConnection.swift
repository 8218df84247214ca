import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSession {
  /// Errors of a connection closed before any answer came back (curl's "Empty reply from
  /// server", a reset).
  static let closedUnanswered: Set<URLError.Code> = [.networkConnectionLost, .zeroByteResource, .badServerResponse]

  /// `data(for:)`, sent once more on a new connection when the first closed without an answer:
  /// a kept-alive connection the far end closed just as it was reused reads that way. Only for
  /// calls that read or set a value (Apple's APIs here), which a second send cannot double.
  func dataRetryingClosedConnection(for request: URLRequest) async throws -> (Data, URLResponse) {
    do {
      return try await data(for: request)
    } catch let error as URLError where Self.closedUnanswered.contains(error.code) {
      return try await data(for: request)
    }
  }
}
