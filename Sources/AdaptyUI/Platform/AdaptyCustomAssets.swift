#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit) && canImport(AVFoundation)
  import AVFoundation
  import SwiftUI
  import UIKit

  /// An app asset an `AdaptyUIAssetsResolver` hands out, in Adapty 3.x's shape.
  public enum AdaptyUICustomAsset: Sendable {
    case image(AdaptyUICustomImageAsset)
    case video(AdaptyUICustomVideoAsset)
    case color(AdaptyUICustomColorAsset)
    case gradient(AdaptyUICustomGradientAsset)
    case font(UIFont)
  }

  /// An image: a file, a URL (with a preview), or a `UIImage`.
  public enum AdaptyUICustomImageAsset: Sendable {
    case file(url: URL)
    case remote(url: URL, preview: UIImage?)
    case uiImage(value: UIImage)
  }

  /// A video: a file, a URL, or a player of the app's.
  public enum AdaptyUICustomVideoAsset: Sendable {
    case file(url: URL, preview: AdaptyUICustomImageAsset?)
    case remote(url: URL, preview: AdaptyUICustomImageAsset?)
    case player(item: AVPlayerItem, player: AVQueuePlayer, preview: AdaptyUICustomImageAsset?)
  }

  /// A color, UIKit's or SwiftUI's.
  public enum AdaptyUICustomColorAsset: Sendable {
    case uiColor(UIColor)
    case swiftUIColor(Color)
  }

  /// A gradient.
  public enum AdaptyUICustomGradientAsset: Sendable {
    case linear(gradient: Gradient, startPoint: UnitPoint, endPoint: UnitPoint)
    case angular(gradient: Gradient, center: UnitPoint, angle: Angle = .zero)
    case radial(gradient: Gradient, center: UnitPoint, startRadius: CGFloat, endRadius: CGFloat)
  }
#endif
