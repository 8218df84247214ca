import Foundation
import TollgateAPI
import TollgateSupport

/// Which paywall the reports credit with a transaction first stored now: a pure rule over
/// what is stored, so the live path and a test with a hand-written history decide alike.
public enum PurchaseCredit {
  /// The credit for a transaction first stored now.
  ///
  /// In order: a renewal, upgrade or refund follows its subscription's first stored
  /// transaction (`subscription`); a variation the SDK named; nothing for an unknown buyer; no
  /// paywall for a subscription the user already had (`owned`); else the last flow shown to the
  /// buyer within `PurchaseAttribution.window` before the purchase (`lastShown`, asked only
  /// then, with the window's bounds); else the buyer alone.
  public static func of(
    _ payload: TransactionPayload, namedVariation: String?, owned: Bool, buyer: String?,
    subscription: PurchaseAttribution?, lastShown: (_ from: Date, _ through: Date) throws -> PurchaseAttribution?
  ) rethrows -> PurchaseAttribution {
    if var first = subscription {
      first.profileId = first.profileId ?? buyer
      return first
    }
    if let named = namedVariation, let credited = PurchaseAttribution(variationId: named, profileId: buyer) {
      return credited
    }
    guard let buyer else { return PurchaseAttribution() }
    guard !owned else { return PurchaseAttribution(profileId: buyer) }
    let purchased = Date(timeIntervalSince1970: Double(payload.purchaseDate) / 1000)
    guard var shown = try lastShown(purchased.addingTimeInterval(-PurchaseAttribution.window), purchased) else {
      return PurchaseAttribution(profileId: buyer)
    }
    shown.profileId = buyer
    return shown
  }
}
