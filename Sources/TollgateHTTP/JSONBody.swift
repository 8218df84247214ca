import Foundation
import TollgateAPI
import TollgateSupport

extension Request {
  /// Decodes the JSON body after checking its media type: 415 when it is not JSON, 400 when
  /// it is not valid JSON (including invalid UTF-8) or not the expected shape.
  package func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
    try requireJSON()
    do {
      return try WireCoding.decoder.decode(type, from: body)
    } catch let DecodingError.keyNotFound(key, context) {
      throw DomainError.malformedJSON("missing \(Self.path(context.codingPath + [key]))")
    } catch let DecodingError.typeMismatch(_, context) {
      throw DomainError.malformedJSON("wrong type at \(Self.path(context.codingPath))")
    } catch let DecodingError.valueNotFound(_, context) {
      throw DomainError.malformedJSON("null at \(Self.path(context.codingPath))")
    } catch {
      throw DomainError.malformedJSON("not parseable as UTF-8 JSON")
    }
  }

  /// 415 unless the body is sent as `application/json`.
  package func requireJSON() throws {
    let mediaType = header("content-type")?.split(separator: ";").first?
      .trimmingCharacters(in: .whitespaces).lowercased()
    guard mediaType == "application/json" else {
      throw DomainError(.unsupportedMediaType, "Send the body as Content-Type: application/json.")
    }
  }

  /// `limit` from the query: `fallback` when absent, 400 outside 1…`maximum`.
  package func limit(default fallback: Int, maximum: Int) throws -> Int {
    guard let text = query["limit"] else { return fallback }
    guard let value = Int(text), (1...maximum).contains(value) else {
      throw DomainError(.badParameter, "limit is a whole number from 1 to \(maximum).")
    }
    return value
  }

  private static func path(_ keys: [any CodingKey]) -> String {
    keys.reduce("$") { path, key in
      key.intValue.map { "\(path)[\($0)]" } ?? "\(path).\(key.stringValue)"
    }
  }
}
