#if canImport(StoreKit)
  import Foundation
  import StoreKit

  /// Observer mode's `reportTransaction` with StoreKit's types: the signed transaction (its
  /// JWS is what the server verifies) handed to `reportTransaction(_: AdaptyStoreTransaction…)`.
  @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
  extension Adapty {
    /// Reports a transaction the app made, as StoreKit returned it.
    public nonisolated static func reportTransaction(
      _ signedTransaction: VerificationResult<Transaction>, withVariationId variationId: String? = nil
    ) async throws(AdaptyError) {
      try await reportTransaction(StoreKitPurchaseSource.transaction(signedTransaction), withVariationId: variationId)
    }

    /// Reports a transaction the app made; its signed form is looked up in `Transaction.all`.
    public nonisolated static func reportTransaction(
      _ transaction: Transaction, withVariationId variationId: String? = nil
    ) async throws(AdaptyError) {
      var signed: VerificationResult<Transaction>?
      for await candidate in Transaction.all where candidate.unsafePayloadValue.id == transaction.id {
        signed = candidate
        break
      }
      guard let signed else {
        throw AdaptyError(.wrongParam, "Transaction \(transaction.id) is not among the App Store's transactions.")
      }
      try await reportTransaction(signed, withVariationId: variationId)
    }

    /// `reportTransaction` of StoreKit's signed transaction with a completion handler.
    @_disfavoredOverload
    public nonisolated static func reportTransaction(
      _ signedTransaction: VerificationResult<Transaction>, withVariationId variationId: String? = nil,
      _ completion: AdaptyErrorCompletion? = nil
    ) {
      reportTransaction(StoreKitPurchaseSource.transaction(signedTransaction), withVariationId: variationId, completion)
    }
  }
#endif
