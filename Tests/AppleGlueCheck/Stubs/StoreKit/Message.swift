// Interface stubs of StoreKit's App Store messages API, written from Apple's documentation.
// Nothing here runs: every body is `fatalError()`.
import UIKit

/// Mirrors https://developer.apple.com/documentation/storekit/message
/// (`struct Message`, iOS 16.0+, Mac Catalyst 16.0+, not macOS/tvOS/watchOS).
@available(iOS 16.0, macCatalyst 16.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct Message {
  /// Mirrors https://developer.apple.com/documentation/storekit/message/reason-swift.property
  /// (`let reason: Message.Reason`).
  public var reason: Message.Reason { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/storekit/message/display(in:)
  /// (`@MainActor func display(in scene: UIWindowScene) throws`).
  @MainActor public func display(in scene: UIWindowScene) throws { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/storekit/message/messages-swift.type.property
  /// (`static var messages: Message.Messages { get }`).
  public static var messages: Message.Messages { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/storekit/message/reason-swift.struct
  /// (`struct Reason`, RawRepresentable with an `Int` raw value).
  public struct Reason: RawRepresentable, Hashable, Sendable {
    /// Mirrors https://developer.apple.com/documentation/storekit/message/reason-swift.struct/rawvalue
    public let rawValue: Int
    /// Mirrors https://developer.apple.com/documentation/storekit/message/reason-swift.struct/init(rawvalue:)
    public init(rawValue: Int) { fatalError() }
    /// Mirrors https://developer.apple.com/documentation/storekit/message/reason-swift.struct/generic
    public static let generic: Message.Reason = { fatalError() }()
    /// Mirrors https://developer.apple.com/documentation/storekit/message/reason-swift.struct/priceincreaseconsent
    public static let priceIncreaseConsent: Message.Reason = { fatalError() }()
    /// Mirrors https://developer.apple.com/documentation/storekit/message/reason-swift.struct/billingissue
    /// (iOS 16.4+).
    @available(iOS 16.4, macCatalyst 16.4, visionOS 1.0, *)
    public static let billingIssue: Message.Reason = { fatalError() }()
    /// Mirrors https://developer.apple.com/documentation/storekit/message/reason-swift.struct/winbackoffer
    /// (iOS 18.0+).
    @available(iOS 18.0, macCatalyst 18.0, visionOS 2.0, *)
    public static let winBackOffer: Message.Reason = { fatalError() }()
  }

  /// Mirrors https://developer.apple.com/documentation/storekit/message/messages-swift.struct
  /// (`struct Messages : AsyncSequence`, `Element = Message`).
  public struct Messages: AsyncSequence {
    public typealias Element = Message
    /// Mirrors https://developer.apple.com/documentation/storekit/message/messages-swift.struct/asynciterator
    public struct AsyncIterator: AsyncIteratorProtocol {
      /// `mutating func next() async -> Message.Messages.Element?`: never throws.
      public mutating func next() async -> Message? { fatalError() }
    }
    /// Mirrors https://developer.apple.com/documentation/storekit/message/messages-swift.struct/makeasynciterator()
    public func makeAsyncIterator() -> AsyncIterator { fatalError() }
  }
}
