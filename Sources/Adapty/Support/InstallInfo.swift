import Foundation
import TollgateAPI

/// The SDK's version, sent with every profile.
let sdkVersion = "4.2.0-tollgate"

/// What the SDK reports about the install.
struct InstallInfo: Sendable, Hashable {
  var appVersion: String?
  var osVersion: String?
  var deviceModel: String?
  var locale: String?

  static func current() -> InstallInfo {
    let os = ProcessInfo.processInfo.operatingSystemVersion
    return InstallInfo(
      appVersion: Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String,
      osVersion: "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)",
      deviceModel: machineIdentifier(),
      locale: Locale.preferredLanguages.first ?? Locale.current.identifier)
  }

  var wire: InstallMeta {
    InstallMeta(
      appVersion: appVersion, osVersion: osVersion, deviceModel: deviceModel, locale: locale, sdkVersion: sdkVersion)
  }

  /// `iPhone15,2` on devices, the architecture elsewhere (from `uname`).
  private static func machineIdentifier() -> String? {
    var system = utsname()
    guard uname(&system) == 0 else { return nil }
    return withUnsafeBytes(of: &system.machine) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
  }
}

/// Where the SDK keeps its files by default.
enum StorageLocation {
  static func defaultDirectory() -> URL {
    #if canImport(Darwin)
      let base =
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
        ?? FileManager.default.temporaryDirectory
      return base.appendingPathComponent("Adapty", isDirectory: true)
    #else
      let environment = ProcessInfo.processInfo.environment
      let base =
        environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
      return base.appendingPathComponent(ProcessInfo.processInfo.processName).appendingPathComponent("adapty")
    #endif
  }
}
