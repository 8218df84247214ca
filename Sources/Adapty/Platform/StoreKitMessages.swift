#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(StoreKit) && canImport(SwiftUI) && canImport(UIKit)
  import StoreKit
  import SwiftUI
  import UIKit

  /// Listens to StoreKit's `Message.messages` (iOS 16+). Listening is what stops StoreKit
  /// from showing messages itself. StoreKit's `Message` has no identity, so the reason is
  /// the message's identity: one pending message per reason.
  @available(iOS 16.0, macCatalyst 16.0, *)
  struct StoreKitMessageSource: AdaptyStoreMessageSource {
    /// Compared by raw value against StoreKit's own constants, each where it exists.
    static func type(of reason: Message.Reason) -> AdaptyStoreMessageType {
      if reason.rawValue == Message.Reason.generic.rawValue { return .generic }
      if reason.rawValue == Message.Reason.priceIncreaseConsent.rawValue { return .priceIncreaseConsent }
      if #available(iOS 16.4, macCatalyst 16.4, *), reason.rawValue == Message.Reason.billingIssue.rawValue {
        return .billingIssue
      }
      if #available(iOS 18.0, macCatalyst 18.0, *), reason.rawValue == Message.Reason.winBackOffer.rawValue {
        return .winBackOffer
      }
      return .unknownStoreKitReason(reason.rawValue)
    }

    func start(_ deliver: @escaping @Sendable (AdaptyStoreMessage) -> Void) {
      Task.detached(priority: .utility) {
        for await message in Message.messages {
          let type = Self.type(of: message.reason)
          deliver(AdaptyStoreMessage(type: type, id: type.rawValue, platformMessage: StoreKitMessage(message: message)))
        }
      }
    }
  }

  /// StoreKit's message, carried through the platform-neutral queue.
  @available(iOS 16.0, macCatalyst 16.0, *)
  struct StoreKitMessage: @unchecked Sendable {
    let message: Message
  }

  @available(iOS 16.0, macCatalyst 16.0, *)
  extension StoreMessageSources {
    static var platformDefault: (any AdaptyStoreMessageSource)? { StoreKitMessageSource() }
  }

  @available(iOS 16.0, macCatalyst 16.0, *)
  extension Adapty {
    /// Shows pending App Store messages with SwiftUI's `displayStoreKitMessage` action.
    @MainActor
    public static func showStoreMessages(
      for types: Set<AdaptyStoreMessageType>? = nil, using action: DisplayMessageAction
    ) async throws(AdaptyError) {
      try await showStoreMessages(for: types) { message in
        guard let storeKit = message.platformMessage as? StoreKitMessage else { return }
        try await MainActor.run { try action(storeKit.message) }
      }
    }

    /// Shows pending App Store messages in a window scene; nil throws 3202.
    @MainActor
    public static func showStoreMessages(
      for types: Set<AdaptyStoreMessageType>? = nil, in scene: UIWindowScene?
    ) async throws(AdaptyError) {
      guard let scene else {
        throw AdaptyError(.storeMessagesNoWindowScene, "There is no window scene to show store messages in.")
      }
      try await showStoreMessages(for: types) { message in
        guard let storeKit = message.platformMessage as? StoreKitMessage else { return }
        try await MainActor.run { try storeKit.message.display(in: scene) }
      }
    }
  }
#endif

/// The default App Store message source of this platform.
enum StoreMessageSources {
  static var available: (any AdaptyStoreMessageSource)? {
    #if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(StoreKit) && canImport(SwiftUI) && canImport(UIKit)
      if #available(iOS 16.0, macCatalyst 16.0, *) { return StoreMessageSources.platformDefault }
    #endif
    return nil
  }
}
