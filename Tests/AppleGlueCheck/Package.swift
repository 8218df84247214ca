// swift-tools-version: 6.0
// Type-checks the SDK's Apple-only glue on Linux. The targets named like Apple's frameworks
// are interface stubs written from Apple's documentation (bodies are `fatalError()`), so
// `#if canImport(StoreKit)` and friends are taken and every line under
// `Sources/Adapty/Platform` meets a compiler. Not part of the product: `make apple-check`.
import PackageDescription

/// Strict settings for every target: Swift 6 mode is the package default; warnings fail.
let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
  name: "AppleGlueCheck",
  targets: [
    .target(name: "UIKit", path: "Stubs/UIKit", swiftSettings: strict),
    .target(name: "SwiftUI", dependencies: ["UIKit"], path: "Stubs/SwiftUI", swiftSettings: strict),
    .target(name: "AdServices", path: "Stubs/AdServices", swiftSettings: strict),
    .target(name: "AVFoundation", path: "Stubs/AVFoundation", swiftSettings: strict),
    .target(name: "SafariServices", dependencies: ["UIKit"], path: "Stubs/SafariServices", swiftSettings: strict),
    .target(name: "StoreKit", dependencies: ["UIKit", "SwiftUI"], path: "Stubs/StoreKit", swiftSettings: strict),
    // The real SDK sources (symlinks to the repository's Sources/).
    .target(name: "TollgateAPI", path: "Sources/TollgateAPI", swiftSettings: strict),
    .target(
      name: "Adapty",
      dependencies: ["TollgateAPI", "AdServices", "StoreKit", "SwiftUI", "UIKit"],
      path: "Sources/Adapty",
      // Stands in for `os(iOS)` where the glue needs it: the stubs cannot make Linux iOS.
      swiftSettings: strict + [.define("TOLLGATE_APPLE_GLUE_CHECK")]
    ),
    .target(
      name: "AdaptyUI",
      dependencies: ["Adapty", "TollgateAPI", "StoreKit", "SwiftUI", "UIKit", "AVFoundation", "SafariServices"],
      path: "Sources/AdaptyUI",
      swiftSettings: strict + [.define("TOLLGATE_APPLE_GLUE_CHECK")]
    ),
    // The seed pages' Apple-only samples, as an app would write them.
    .target(
      name: "SeedSnippets", dependencies: ["Adapty", "AdaptyUI", "StoreKit", "SwiftUI", "UIKit", "AVFoundation"],
      path: "SeedSnippets",
      swiftSettings: strict),
    // App code as written from Adapty's AdaptyUI documentation (3.x and 4.x names). Apps
    // written for Adapty 3.x call the 3.x names, which Tollgate keeps as deprecated aliases:
    // those warnings stay warnings, every other one fails.
    .target(
      name: "AdaptyAppSamples", dependencies: ["Adapty", "AdaptyUI", "SwiftUI", "UIKit"], path: "AppSamples",
      exclude: ["README.md"],
      swiftSettings: [.unsafeFlags(["-warnings-as-errors", "-Wwarning", "DeprecatedDeclaration"])]),
  ],
  swiftLanguageModes: [.v6]
)
