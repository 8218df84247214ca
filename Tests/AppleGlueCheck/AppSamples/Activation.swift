// Activating at launch, from an app delegate (no `await` there): the callback forms.
import Adapty
import AdaptyUI
import UIKit

final class LaunchDelegate: NSObject {
  func applicationDidFinishLaunching() {
    let configuration =
      AdaptyConfiguration
      .builder(withAPIKey: "PUBLIC_SDK_KEY")
      .with(customerUserId: nil)
      .with(logLevel: .verbose)
      .build()
    Adapty.activate(with: configuration) { error in
      if let error { print("Adapty activation failed: \(error)") }
    }
    let cache = AdaptyUI.MediaCacheConfiguration(
      memoryStorageTotalCostLimit: 100 * 1024 * 1024,
      memoryStorageCountLimit: .max,
      diskStorageSizeLimit: 100 * 1024 * 1024)
    AdaptyUI.activate(configuration: AdaptyUI.Configuration(mediaCacheConfiguration: cache))
  }

  func activateLater() async throws {
    try await Adapty.activate(with: AdaptyConfiguration.builder(withAPIKey: "PUBLIC_SDK_KEY").build())
    try await AdaptyUI.activate()
  }
}
