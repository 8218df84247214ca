import Foundation
import TollgateSupport

/// One HTTP request as the router sees it: parsed by libmicrohttpd, body fully read.
public struct Request: Sendable {
  /// Upper-case method, e.g. `GET`.
  public var method: String
  /// The decoded path without the query string.
  public var path: String
  /// Query arguments, decoded by libmicrohttpd; an argument without `=` reads as "".
  public var query: RequestFields
  /// Headers, looked up without regard to case.
  public var headers: RequestFields
  /// The request body (at most the server's body limit); empty on a streamed route, whose
  /// sink's reading is in `upload`.
  public var body: Data
  /// What a streamed route's `BodySink` made of the body (nil elsewhere, and when a test
  /// hands the request to the service directly: the route then reads `body`).
  public var upload: (any Sendable)?
  /// Values of `{name}` segments of the matched route.
  public var pathParameters = RequestFields()
  /// The peer's address as libmicrohttpd saw it ("" when unknown, e.g. tests calling the
  /// service directly).
  public var clientAddress: String = ""

  /// Creates a request (tests build them directly).
  public init(
    method: String, path: String, query: [String: String] = [:],
    headers: [String: String] = [:], body: Data = Data()
  ) {
    self.init(
      method: method, path: path, query: RequestFields(query),
      headers: RequestFields(headers, foldsCase: true), body: body)
  }

  /// Creates a request from fields read off the connection.
  init(method: String, path: String, query: RequestFields, headers: RequestFields, body: Data = Data()) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
  }

  /// A header by case-insensitive name.
  public func header(_ name: String) -> String? { headers[name] }

  /// A path parameter the route declared; routes only ask for names they declare.
  public func parameter(_ name: String) -> String { pathParameters[name] ?? "" }
}

/// Named values of one request — headers, query arguments or path parameters — read once:
/// one buffer of length-prefixed name/value pairs scanned in order, instead of a dictionary.
/// A request carries a handful, and one allocation beats a dictionary's many (its storage, and
/// a string per name and value). A name given twice reads as its last value.
public struct RequestFields: Sendable {
  private var bytes: [UInt8] = []
  /// Names compare without regard to ASCII case (headers); they are stored lower-cased.
  private let foldsCase: Bool

  /// Empty fields.
  public init(foldsCase: Bool = false) {
    self.foldsCase = foldsCase
  }

  /// Fields from a dictionary (tests build requests this way).
  public init(_ values: [String: String], foldsCase: Bool = false) {
    self.init(foldsCase: foldsCase)
    for (name, value) in values.sorted(by: { $0.key < $1.key }) {
      append(name: Array(name.utf8), value: Array(value.utf8))
    }
  }

  /// Adds a pair.
  mutating func append(name: some Collection<UInt8>, value: some Collection<UInt8>) {
    if bytes.isEmpty { bytes.reserveCapacity(256) }
    Self.appendLength(name.count, to: &bytes)
    if foldsCase {
      for byte in name { bytes.append(Self.lowered(byte)) }
    } else {
      bytes.append(contentsOf: name)
    }
    Self.appendLength(value.count, to: &bytes)
    bytes.append(contentsOf: value)
  }

  /// The value of `name` (the last one given), nil when absent.
  public subscript(name: String) -> String? {
    withValue(name) { value in value.map { String(decoding: $0, as: UTF8.self) } }
  }

  /// `body` with the bytes of `name`'s value (the last one given), nil when absent: a value
  /// read without making a string of it (the hot path parses the key out of `Authorization`).
  public func withValue<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> Result) -> Result {
    var name = name
    return name.withUTF8 { wanted in
      bytes.withUnsafeBufferPointer { all -> Result in
        var found: Range<Int>?
        var offset = 0
        while offset < all.count {
          let nameLength = Self.readLength(all, &offset)
          let nameRange = offset..<offset + nameLength
          offset += nameLength
          let valueLength = Self.readLength(all, &offset)
          if matches(all[nameRange], wanted) { found = offset..<offset + valueLength }
          offset += valueLength
        }
        return body(found.map { UnsafeBufferPointer(rebasing: all[$0]) })
      }
    }
  }

  /// Every pair (the last value of a name given twice).
  public var dictionary: [String: String] {
    bytes.withUnsafeBufferPointer { all in
      var result: [String: String] = [:]
      var offset = 0
      while offset < all.count {
        let nameLength = Self.readLength(all, &offset)
        let name = String(decoding: UnsafeBufferPointer(rebasing: all[offset..<offset + nameLength]), as: UTF8.self)
        offset += nameLength
        let valueLength = Self.readLength(all, &offset)
        result[name] = String(
          decoding: UnsafeBufferPointer(rebasing: all[offset..<offset + valueLength]), as: UTF8.self)
        offset += valueLength
      }
      return result
    }
  }

  /// True when there are no pairs.
  public var isEmpty: Bool { bytes.isEmpty }

  private func matches(_ stored: Slice<UnsafeBufferPointer<UInt8>>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
    guard stored.count == wanted.count else { return false }
    guard foldsCase else { return stored.elementsEqual(wanted) }
    return zip(stored, wanted).allSatisfy { $0 == Self.lowered($1) }
  }

  private static func lowered(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
  }

  private static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
    var rest = length
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  private static func readLength(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int) -> Int {
    var length = 0
    var shift = 0
    while offset < bytes.count {
      let byte = bytes[offset]
      offset += 1
      length |= Int(byte & 0x7f) << shift
      if byte < 0x80 { break }
      shift += 7
    }
    return length
  }
}

/// Where a request comes from, as far as the connection and trusted proxies say: the client's
/// address, whether it came over TLS, its cookies.
extension Request {
  /// The connection's address, or — when the connection comes from a trusted proxy — the last
  /// address that proxy added to `X-Forwarded-For`.
  public func address(trusting proxies: Set<String>) -> String {
    guard let forwarded = headers["x-forwarded-for"]?.split(separator: ",").last,
      proxies.contains(clientAddress)
    else { return clientAddress }
    return forwarded.trimmingCharacters(in: .whitespaces)
  }

  /// Whether a trusted proxy says the client used HTTPS (`X-Forwarded-Proto: https`); the
  /// server itself speaks plain HTTP.
  public func isSecure(trusting proxies: Set<String>) -> Bool {
    proxies.contains(clientAddress) && headers["x-forwarded-proto"]?.lowercased() == "https"
  }

  /// The value of the cookie `name` (RFC 6265's `Cookie: a=1; b=2`), or nil.
  public func cookie(_ name: String) -> String? {
    guard let header = headers["cookie"] else { return nil }
    for pair in header.split(separator: ";") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
      return parts[1].trimmingCharacters(in: .whitespaces)
    }
    return nil
  }
}
