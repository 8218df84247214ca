// StoreKit's SwiftUI overlay (`_StoreKit_SwiftUI`, present when an app imports both
// StoreKit and SwiftUI), written from Apple's documentation. Nothing here runs.
import SwiftUI

/// Mirrors https://developer.apple.com/documentation/storekit/displaymessageaction
/// (`@MainActor struct DisplayMessageAction`, iOS 16.0+).
@available(iOS 16.0, macCatalyst 16.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@MainActor
public struct DisplayMessageAction {
  /// Mirrors https://developer.apple.com/documentation/storekit/displaymessageaction/callasfunction(_:)
  /// (`@MainActor func callAsFunction(_ message: Message) throws`).
  @MainActor public func callAsFunction(_ message: Message) throws { fatalError() }
}

@available(iOS 16.0, macCatalyst 16.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
extension EnvironmentValues {
  /// Mirrors https://developer.apple.com/documentation/swiftui/environmentvalues/displaystorekitmessage
  /// (`var displayStoreKitMessage: DisplayMessageAction { get }`).
  public var displayStoreKitMessage: DisplayMessageAction { fatalError() }
}
