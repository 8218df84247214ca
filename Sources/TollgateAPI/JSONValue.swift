import Foundation

/// Any JSON value: what remote configs, rules and custom attributes are made of.
///
/// Integers are kept apart from doubles so that ids such as Apple Ads campaign ids
/// (Int64) round-trip exactly.
public enum JSONValue: Sendable, Hashable, Codable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    // The common kinds first: each failed attempt throws an error with its coding path, and
    // trying Bool, Int64 and Double before every string made decoding a profile import line
    // cost several times its parse. The kinds do not overlap (a number is no Bool, a string no
    // number), except that Int64 must come before Double.
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([String: JSONValue].self) {
      self = .object(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .int(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .int(let value): try container.encode(value)
    case .double(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// The members of an object, or nil.
  public var objectValue: [String: JSONValue]? {
    if case .object(let value) = self { return value }
    return nil
  }

  /// The elements of an array, or nil.
  public var arrayValue: [JSONValue]? {
    if case .array(let value) = self { return value }
    return nil
  }

  /// The text of a string, or nil.
  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The value of a number (integer or not) as a Double, or nil.
  public var numberValue: Double? {
    switch self {
    case .int(let value): return Double(value)
    case .double(let value): return value
    default: return nil
    }
  }

  /// A short name of the JSON type, for error messages.
  public var typeName: String {
    switch self {
    case .null: return "null"
    case .bool: return "boolean"
    case .int, .double: return "number"
    case .string: return "string"
    case .array: return "array"
    case .object: return "object"
    }
  }
}

extension JSONValue {
  /// Serializes with sorted keys, so equal values always give identical bytes.
  public func canonicalData() throws -> Data {
    try WireCoding.encoder.encode(self)
  }
}
