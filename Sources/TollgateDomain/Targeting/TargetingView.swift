import Foundation
import TollgateAPI
import TollgateSupport

/// What resolving a placement needs of a profile: its id and, packed, the values of the
/// attributes its app's rules read — not the full record (purchases, attribution payloads,
/// install details no rule names). The profile cache keeps these, a few dozen bytes each.
///
/// Bytes: a flag byte (1: the access levels changed since the purchases were derived, so the
/// profile must be read in full; 2: a lapse time follows), the lapse time, then one packed
/// value per schema name in order. A holder may append its own bytes after them.
package struct TargetingView: Sendable {
  /// The profile id (lower-cased UUID).
  package let profileId: String
  /// The schema it was packed for.
  let schemaId: UInt32
  let bytes: PackedBytes
  /// Where interned strings are looked up (nil: none interned).
  let strings: StringTable?

  private static let staleLevels: UInt8 = 1
  private static let lapses: UInt8 = 2

  package init(profileId: String, schemaId: UInt32, bytes: PackedBytes, strings: StringTable?) {
    self.profileId = profileId
    self.schemaId = schemaId
    self.bytes = bytes
    self.strings = strings
  }

  /// The view of a full record (not kept: built on a path that read the record anyway).
  package init(profile: ProfileRecord, schema: TargetingSchema) {
    self.init(
      profileId: profile.id, schemaId: schema.id, bytes: PackedBytes(Self.pack(profile, schema: schema, strings: nil)),
      strings: nil)
  }

  /// The packed bytes of a profile for `schema`.
  package static func pack(_ profile: ProfileRecord, schema: TargetingSchema, strings: StringTable?) -> [UInt8] {
    let purchases = profile.purchases
    return pack(
      attributes: ProfileAttributes.of(profile, now: profile.createdAt, accessLevels: schema.accessLevels),
      schema: schema, strings: strings, ageBase: profile.createdAt, lapsesAt: purchases.nextChangeAt,
      staleLevels: purchases.hasPurchases && purchases.levelsKey != schema.levelsKey)
  }

  /// Packs flat attributes; with `ageBase`, `profile.age_days` is computed from it when read.
  static func pack(
    attributes: [String: JSONValue], schema: TargetingSchema, strings: StringTable?, ageBase: Date? = nil,
    lapsesAt: Date? = nil, staleLevels: Bool = false
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    bytes.append((staleLevels ? Self.staleLevels : 0) | (lapsesAt == nil ? 0 : Self.lapses))
    if let lapsesAt { PackedValue.appendDouble(lapsesAt.timeIntervalSinceReferenceDate, to: &bytes) }
    for name in schema.names {
      if name == "profile.age_days", let ageBase {
        bytes.append(PackedValue.Tag.ageBase.rawValue)
        PackedValue.appendDouble(ageBase.timeIntervalSinceReferenceDate, to: &bytes)
      } else {
        PackedValue.append(attributes[name], to: &bytes, strings: strings)
      }
    }
    return bytes
  }

  /// False when the full record must be read (and its purchases derived again) first: a
  /// subscription lapsed since, or the access levels changed.
  package func isCurrent(at now: Date) -> Bool {
    bytes.withUnsafeBytes { raw in
      var reader = PackedValue.Reader(bytes: raw, strings: nil)
      guard let flags = reader.byte() else { return false }
      if flags & Self.staleLevels != 0 { return false }
      guard flags & Self.lapses != 0 else { return true }
      guard let lapse = reader.double() else { return false }
      return Date(timeIntervalSinceReferenceDate: lapse) > now
    }
  }

  /// Where the values start.
  private static func valuesStart(_ reader: inout PackedValue.Reader) {
    if let flags = reader.byte(), flags & lapses != 0 { reader.offset += 8 }
  }

  /// The bytes after the values (a holder's own), from `schema`'s point of view.
  package static func valuesEnd(_ raw: UnsafeRawBufferPointer, schema count: Int) -> Int {
    var reader = PackedValue.Reader(bytes: raw, strings: nil)
    valuesStart(&reader)
    for _ in 0..<count { reader.skip() }
    return reader.offset
  }

  /// The value of one attribute (nil: absent, or not one the schema reads).
  func value(of name: String, schema: TargetingSchema, now: Date) -> JSONValue? {
    guard schema.id == schemaId, let position = schema.positions[name] else { return nil }
    return bytes.withUnsafeBytes { raw in
      var reader = PackedValue.Reader(bytes: raw, strings: strings)
      Self.valuesStart(&reader)
      for _ in 0..<position { reader.skip() }
      return reader.value(now: now)
    }
  }

  /// The profile's locale.
  package func locale(_ schema: TargetingSchema) -> String? {
    value(of: "locale", schema: schema, now: Date(timeIntervalSinceReferenceDate: 0))?.stringValue
  }

  /// The attributes as rules read them, at `now`.
  package func attributes(_ schema: TargetingSchema, now: Date) -> Attributes {
    Attributes(view: self, schema: schema, now: now)
  }

  /// A view read through a schema at an instant.
  package struct Attributes: RuleAttributes {
    let view: TargetingView
    let schema: TargetingSchema
    let now: Date

    package func value(of name: String) -> JSONValue? { view.value(of: name, schema: schema, now: now) }
  }
}
