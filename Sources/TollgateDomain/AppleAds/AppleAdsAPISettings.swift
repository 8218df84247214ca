import Foundation
import TollgateAPI
import TollgateSupport

/// `apple_ads_api` in an app's document: who Tollgate is in Apple Ads' Campaign Management API
/// (the private key is not here: it is uploaded apart and kept sealed) and how it imports spend.
public struct AppleAdsAPISettings: Sendable, Hashable {
  /// The organization (`X-AP-Context: orgId=…`).
  public var orgId: Int64
  /// `SEARCHADS.…`, shown in Apple Ads when the public key is uploaded.
  public var clientId: String
  public var teamId: String
  public var keyId: String
  /// Days read on the first run (Apple serves daily figures for the last 90 days at most).
  public var backfillDays: Int64 = 90
  /// Recent days read again on every later run: Apple revises them.
  public var refreshDays: Int64 = 3
  /// Hours between runs.
  public var everyHours: Int64 = 6

  /// Every identifier that must change for old credentials to become new ones.
  package var identity: String { "\(orgId)|\(clientId)|\(teamId)|\(keyId)" }
}

extension ConfigValidator.Validation {
  /// `apple_ads_api`: the Campaign Management API's identifiers and the import's schedule.
  mutating func appleAdsAPISettings(_ json: JSONValue) -> AppleAdsAPISettings? {
    let path = "$.apple_ads_api"
    guard
      let object = object(
        json, at: path, required: ["org_id", "client_id", "team_id", "key_id"],
        optional: ["backfill_days", "refresh_days", "every_hours"])
    else { return nil }
    var orgId: Int64?
    switch object["org_id"] {
    case .int(let value)? where value > 0: orgId = value
    default: fail("\(path).org_id", "Apple Ads' numeric organization id")
    }
    func identifier(_ name: String) -> String? {
      guard let text = string(object[name], at: "\(path).\(name)") else { return nil }
      // At most 200 code points: what the API's schema (`maxLength`) counts.
      guard !text.isEmpty, text.unicodeScalars.count <= 200, !text.contains(where: { $0.isWhitespace || $0.isNewline })
      else {
        fail("\(path).\(name)", "a non-empty identifier without spaces, as Apple Ads shows it")
        return nil
      }
      return text
    }
    let clientId = identifier("client_id")
    let teamId = identifier("team_id")
    let keyId = identifier("key_id")
    func days(_ name: String, _ range: ClosedRange<Int64>, default value: Int64) -> Int64 {
      switch object[name] {
      case nil: return value
      case .int(let number)? where range.contains(number): return number
      default:
        fail("\(path).\(name)", "a whole number from \(range.lowerBound) to \(range.upperBound)")
        return value
      }
    }
    let backfill = days("backfill_days", 1...90, default: 90)
    let refresh = days("refresh_days", 1...30, default: 3)
    let every = days("every_hours", 1...168, default: 6)
    guard let orgId, let clientId, let teamId, let keyId else { return nil }
    return AppleAdsAPISettings(
      orgId: orgId, clientId: clientId, teamId: teamId, keyId: keyId, backfillDays: backfill, refreshDays: refresh,
      everyHours: every)
  }
}
