import Foundation
import Synchronization

/// The outcome a completion handler receives.
public typealias AdaptyResult<Success> = Result<Success, AdaptyError>
/// A completion handler told only whether the call failed.
public typealias AdaptyErrorCompletion = @Sendable (AdaptyError?) -> Void
/// A completion handler told the call's result.
public typealias AdaptyResultCompletion<Success> = @Sendable (AdaptyResult<Success>) -> Void

/// Runs the completion-handler forms: the async call in a task, its outcome handed to the
/// handler on the configuration's `callbackDispatchQueue` (the main queue by default).
package enum AdaptyCallbacks {
  private static let configured = Mutex<DispatchQueue?>(nil)

  /// The queue handlers run on.
  package static var queue: DispatchQueue { configured.withLock { $0 } ?? .main }

  /// Remembers the configured queue (at activation).
  static func use(_ queue: DispatchQueue?) {
    if let queue { configured.withLock { $0 = queue } }
  }

  /// Runs `work`, then hands its result to `completion` on `queue` (the configured one).
  package static func run<Success: Sendable>(
    _ completion: AdaptyResultCompletion<Success>?, on queue: DispatchQueue? = nil,
    _ work: @escaping @Sendable () async throws(AdaptyError) -> Success
  ) {
    let queue = queue ?? Self.queue
    Task {
      let result: AdaptyResult<Success>
      do throws(AdaptyError) { result = .success(try await work()) } catch { result = .failure(error) }
      guard let completion else { return }
      queue.async { completion(result) }
    }
  }

  /// Runs `work`, then tells `completion` its error, or nil.
  package static func run(
    _ completion: AdaptyErrorCompletion?, on queue: DispatchQueue? = nil,
    _ work: @escaping @Sendable () async throws(AdaptyError) -> Void
  ) {
    let handler: AdaptyResultCompletion<Void>? =
      completion.map { completion in { @Sendable result in completion(result.error) } }
    run(handler, on: queue, work)
  }
}

extension Result where Failure == AdaptyError {
  /// The failure, or nil.
  fileprivate var error: AdaptyError? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

// The completion-handler forms Adapty offers beside every async call: the same call, its
// outcome handed to `completion` on the configuration's `callbackDispatchQueue`.
extension Adapty {
  /// `activate(with:)` with a completion handler (callable where `await` is not).
  @_disfavoredOverload
  public nonisolated static func activate(
    with configuration: AdaptyConfiguration, _ completion: AdaptyErrorCompletion? = nil
  ) {
    // Started before this returns: a call made right after waits for this activation.
    let task: Task<AdaptyRuntime, Never>
    do throws(AdaptyError) {
      task = try Facade.shared.start(configuration)
    } catch {
      AdaptyCallbacks.use(configuration.callbackDispatchQueue)
      AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in throw error }
      return
    }
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in await Facade.shared.finish(task, configuration) }
  }

  /// `activate(_:observerMode:customerUserId:)` with a completion handler.
  @_disfavoredOverload
  public nonisolated static func activate(
    _ apiKey: String, observerMode: Bool = false, customerUserId: String? = nil,
    _ completion: AdaptyErrorCompletion? = nil
  ) {
    activate(
      with: AdaptyConfiguration.builder(withAPIKey: apiKey).with(observerMode: observerMode)
        .with(customerUserId: customerUserId).build(), completion)
  }

  /// `reportTransaction(_:withVariationId:)` with a completion handler.
  @_disfavoredOverload
  public nonisolated static func reportTransaction(
    _ transaction: AdaptyStoreTransaction, withVariationId variationId: String? = nil,
    _ completion: AdaptyErrorCompletion? = nil
  ) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in
      try await reportTransaction(transaction, withVariationId: variationId)
    }
  }

  /// `getProfile()` with a completion handler.
  public nonisolated static func getProfile(_ completion: @escaping AdaptyResultCompletion<AdaptyProfile>) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await getProfile() }
  }

  /// `updateProfile(params:)` with a completion handler.
  @_disfavoredOverload
  public nonisolated static func updateProfile(
    params: AdaptyProfileParameters, _ completion: AdaptyErrorCompletion? = nil
  ) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await updateProfile(params: params) }
  }

  /// `identify(_:)` with a completion handler.
  @_disfavoredOverload
  public nonisolated static func identify(_ customerUserId: String, _ completion: AdaptyErrorCompletion? = nil) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await identify(customerUserId) }
  }

  /// `logout()` with a completion handler.
  @_disfavoredOverload
  public nonisolated static func logout(_ completion: AdaptyErrorCompletion? = nil) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await logout() }
  }

  /// `getFlow(placementId:locale:fetchPolicy:loadTimeout:)` with a completion handler.
  public nonisolated static func getFlow(
    placementId: String, locale: String? = nil, fetchPolicy: AdaptyPlacementFetchPolicy = .default,
    loadTimeout: TimeInterval? = nil, _ completion: @escaping AdaptyResultCompletion<AdaptyFlow>
  ) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in
      try await getFlow(placementId: placementId, locale: locale, fetchPolicy: fetchPolicy, loadTimeout: loadTimeout)
    }
  }

  /// `getFlowForDefaultAudience(placementId:locale:fetchPolicy:)` with a completion handler.
  public nonisolated static func getFlowForDefaultAudience(
    placementId: String, locale: String? = nil, fetchPolicy: AdaptyPlacementFetchPolicy = .default,
    _ completion: @escaping AdaptyResultCompletion<AdaptyFlow>
  ) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in
      try await getFlowForDefaultAudience(placementId: placementId, locale: locale, fetchPolicy: fetchPolicy)
    }
  }

  /// The 3.x name of `getFlow(placementId:locale:fetchPolicy:loadTimeout:_:)`.
  @available(*, deprecated, renamed: "getFlow(placementId:locale:fetchPolicy:loadTimeout:_:)")
  public nonisolated static func getPaywall(
    placementId: String, locale: String? = nil, fetchPolicy: AdaptyPlacementFetchPolicy = .default,
    loadTimeout: TimeInterval? = nil, _ completion: @escaping AdaptyResultCompletion<AdaptyFlow>
  ) {
    getFlow(placementId: placementId, locale: locale, fetchPolicy: fetchPolicy, loadTimeout: loadTimeout, completion)
  }

  /// The 3.x name of `getFlowForDefaultAudience(placementId:locale:fetchPolicy:_:)`.
  @available(*, deprecated, renamed: "getFlowForDefaultAudience(placementId:locale:fetchPolicy:_:)")
  public nonisolated static func getPaywallForDefaultAudience(
    placementId: String, locale: String? = nil, fetchPolicy: AdaptyPlacementFetchPolicy = .default,
    _ completion: @escaping AdaptyResultCompletion<AdaptyFlow>
  ) {
    getFlowForDefaultAudience(placementId: placementId, locale: locale, fetchPolicy: fetchPolicy, completion)
  }

  /// `setFallback(fileURL:)` with a completion handler.
  @_disfavoredOverload
  public nonisolated static func setFallback(fileURL url: URL, _ completion: AdaptyErrorCompletion? = nil) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await setFallback(fileURL: url) }
  }

  /// `logShowFlow(_:)` with a completion handler.
  @_disfavoredOverload
  public nonisolated static func logShowFlow(_ flow: AdaptyFlow, _ completion: AdaptyErrorCompletion? = nil) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await logShowFlow(flow) }
  }

  /// The 3.x name of `logShowFlow(_:_:)`.
  @available(*, deprecated, renamed: "logShowFlow(_:_:)")
  @_disfavoredOverload
  public nonisolated static func logShowPaywall(_ paywall: AdaptyFlow, _ completion: AdaptyErrorCompletion? = nil) {
    logShowFlow(paywall, completion)
  }

  /// `getPaywallProducts(paywall:)` with a completion handler.
  public nonisolated static func getPaywallProducts(
    paywall: AdaptyFlow, _ completion: @escaping AdaptyResultCompletion<[AdaptyPaywallProduct]>
  ) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await getFlowProducts(flow: paywall) }
  }

  /// `getPaywallProducts(flow:)` with a completion handler (4.x).
  public nonisolated static func getPaywallProducts(
    flow: AdaptyFlow, _ completion: @escaping AdaptyResultCompletion<[AdaptyPaywallProduct]>
  ) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await getFlowProducts(flow: flow) }
  }

  /// `makePurchase(product:)` with a completion handler.
  public nonisolated static func makePurchase(
    product: AdaptyPaywallProduct, _ completion: @escaping AdaptyResultCompletion<AdaptyPurchaseResult>
  ) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await makePurchase(product: product) }
  }

  /// `restorePurchases()` with a completion handler.
  public nonisolated static func restorePurchases(_ completion: @escaping AdaptyResultCompletion<AdaptyProfile>) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in try await restorePurchases() }
  }
}
