import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

extension RelationalStore {
  public func purchases<T>(appId: Int64, _ work: (any PurchaseUnitOfWork) throws -> T) throws -> T {
    let (result, saved) = try with { db in
      try db.transaction {
        let unit = RelationalPurchases(db, appId: appId, store: self)
        let result = try work(unit)
        return (result, unit.saved)
      }
    }
    profileChanges.announce(appId: appId, saved)
    return result
  }

  public func transactions(appId: Int64, profileId: String) throws -> [StoredTransaction] {
    try with { db in
      try db.query(
        """
        SELECT payload, jws, variation_id, attr_variation FROM app_store_transactions WHERE app_id = ?
        AND original_transaction_id IN
        (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?) ORDER BY signed_at DESC
        """, [.integer(appId), .integer(appId), .text(profileId)]
      ).map { row in
        let credited = try row.decode("attr_variation", as: String.self)
        return StoredTransaction(
          payload: try StoredPayloads.shared.payload(row),
          jws: try row.decode("jws"), variationId: try row.decode("variation_id"),
          creditedVariationId: credited.isEmpty ? nil : credited)
      }
    }
  }

  static func json<T: Encodable>(_ value: T) -> SQLValue {
    .text(String(decoding: WireCoding.encode(value), as: UTF8.self))
  }
}
