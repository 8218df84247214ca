// Interface stubs of the AVFoundation declarations AdaptyUI's asset types name, written from
// Apple's documentation. Nothing here runs.
import Foundation

/// Mirrors https://developer.apple.com/documentation/avfoundation/avplayeritem
/// (`class AVPlayerItem : NSObject`, iOS 4.0+; `@unchecked Sendable` in the iOS 17 SDK).
@available(iOS 4.0, macOS 10.7, *)
open class AVPlayerItem: NSObject, @unchecked Sendable {
  /// Mirrors https://developer.apple.com/documentation/avfoundation/avplayeritem/init(url:)
  public convenience init(url URL: URL) { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/avfoundation/avplayer
/// (`class AVPlayer : NSObject`, iOS 4.0+).
@available(iOS 4.0, macOS 10.7, *)
open class AVPlayer: NSObject, @unchecked Sendable {}

/// Mirrors https://developer.apple.com/documentation/avfoundation/avqueueplayer
/// (`class AVQueuePlayer : AVPlayer`, iOS 4.1+).
@available(iOS 4.1, macOS 10.7, *)
open class AVQueuePlayer: AVPlayer, @unchecked Sendable {}
