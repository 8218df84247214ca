import Foundation

/// The one JSON encoder/decoder configuration used on the wire by server and SDK.
///
/// Keys are spelled out in each model's `CodingKeys` (snake_case), and output keys are
/// sorted so that the same value always serializes to the same bytes (ETags rely on it).
public enum WireCoding {
  /// Sorted keys, no escaped slashes. Shared: configured once, never mutated.
  public static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// A plain decoder: unknown fields are ignored, as every model decodes only its keys.
  public static let decoder = JSONDecoder()

  /// Encodes a wire model; wire models are plain values and always encode.
  public static func encode<T: Encodable>(_ value: T) -> Data {
    do {
      return try encoder.encode(value)
    } catch {
      preconditionFailure("wire model failed to encode: \(error)")
    }
  }
}
