#if canImport(StoreKit)
  import Foundation
  import StoreKit

  /// StoreKit 2 behind `AdaptyPurchaseSource`. The server verifies Apple's signature on
  /// every transaction, so StoreKit's local verdict (`verified`/`unverified`) is not trusted
  /// either way: the JWS is handed over as it is.
  @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
  struct StoreKitPurchaseSource: AdaptyPurchaseSource {
    var canMakePayments: Bool { AppStore.canMakePayments }

    func products(ids: [String]) async throws -> [AdaptyStoreProduct] {
      var products: [AdaptyStoreProduct] = []
      for product in try await Product.products(for: ids) {
        products.append(Self.product(product, eligible: await product.subscription?.isEligibleForIntroOffer ?? false))
      }
      return products
    }

    func purchase(_ product: AdaptyStoreProduct, appAccountToken: UUID) async throws -> AdaptyStorePurchaseOutcome {
      guard let storeKitProduct = product.platformProduct as? Product else {
        throw AdaptyError(.storeProductNotAvailable, "\(product.id) did not come from StoreKit.")
      }
      let result: Product.PurchaseResult
      do {
        result = try await storeKitProduct.purchase(options: [.appAccountToken(appAccountToken)])
      } catch StoreKitError.userCancelled {
        return .userCancelled
      } catch Product.PurchaseError.purchaseNotAllowed {
        throw AdaptyError(.paymentNotAllowed, "This device may not make the payment.")
      } catch Product.PurchaseError.productUnavailable, StoreKitError.notAvailableInStorefront {
        throw AdaptyError(.storeProductNotAvailable, "\(product.id) is not available in this storefront.")
      }
      switch result {
      case .success(let verification): return .success(Self.transaction(verification))
      case .userCancelled: return .userCancelled
      case .pending: return .pending
      @unknown default: throw AdaptyError(.productPurchaseFailed, "StoreKit answered an unknown purchase result.")
      }
    }

    func currentEntitlements() async throws -> [AdaptyStoreTransaction] {
      var transactions: [AdaptyStoreTransaction] = []
      for await verification in Transaction.currentEntitlements { transactions.append(Self.transaction(verification)) }
      return transactions
    }

    func sync() async throws { try await AppStore.sync() }

    func startUpdates(_ deliver: @escaping @Sendable (AdaptyStoreTransaction) async -> Void) {
      // `updates` also yields the transactions left unfinished by an earlier launch.
      Task.detached(priority: .utility) {
        for await verification in Transaction.updates { await deliver(Self.transaction(verification)) }
      }
    }

    func finish(transactionId: String) async {
      for await verification in Transaction.unfinished {
        let transaction = verification.unsafePayloadValue
        if String(transaction.id) == transactionId {
          await transaction.finish()
          return
        }
      }
    }

    static func product(_ product: Product, eligible: Bool) -> AdaptyStoreProduct {
      AdaptyStoreProduct(
        id: product.id, displayName: product.displayName, description: product.description, price: product.price,
        displayPrice: product.displayPrice, currencyCode: product.priceFormatStyle.currencyCode,
        subscriptionPeriod: product.subscription.map { period($0.subscriptionPeriod) },
        introductoryDiscount: product.subscription?.introductoryOffer.map(offer),
        isEligibleForIntroductoryOffer: eligible, platformProduct: product)
    }

    static func offer(_ offer: Product.SubscriptionOffer) -> AdaptyProductDiscount {
      let mode: AdaptyProductDiscount.PaymentMode =
        offer.paymentMode == .freeTrial ? .freeTrial : offer.paymentMode == .payUpFront ? .payUpFront : .payAsYouGo
      return AdaptyProductDiscount(
        paymentMode: mode, price: offer.price, localizedPrice: offer.displayPrice,
        subscriptionPeriod: period(offer.period), numberOfPeriods: offer.periodCount)
    }

    static func period(_ period: Product.SubscriptionPeriod) -> AdaptySubscriptionPeriod {
      let unit: AdaptyPeriodUnit
      switch period.unit {
      case .day: unit = .day
      case .week: unit = .week
      case .month: unit = .month
      case .year: unit = .year
      @unknown default: unit = .unknown
      }
      return AdaptySubscriptionPeriod(unit: unit, numberOfUnits: period.value)
    }

    static func transaction(_ verification: VerificationResult<Transaction>) -> AdaptyStoreTransaction {
      let transaction = verification.unsafePayloadValue
      return AdaptyStoreTransaction(
        id: String(transaction.id), originalId: String(transaction.originalID), productId: transaction.productID,
        jws: verification.jwsRepresentation)
    }
  }

  extension PurchaseSources {
    static var platformDefault: (any AdaptyPurchaseSource)? {
      if #available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *) { return StoreKitPurchaseSource() }
      return nil
    }
  }

  @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
  extension AdaptyPaywallProduct {
    /// StoreKit's product.
    public var sk2Product: Product? { storeProduct.platformProduct as? Product }
  }
#else
  extension PurchaseSources {
    /// No StoreKit here: purchases need a configured source.
    static var platformDefault: (any AdaptyPurchaseSource)? { nil }
  }
#endif
