import Foundation
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// Opens what an App Store Server API call needs of an app: its `app_store` settings, their
/// `server_api`, and the In-App Purchase key, unsealed.
struct AppStoreServerKeys: Sendable {
  let store: any AppStoreServerRepository
  let secrets: SecretBox?

  /// Why a call cannot be made.
  enum Failure: Error {
    /// The configuration has no `app_store.server_api`.
    case notConfigured(String)
    /// No key, no secrets key, or a key that cannot be opened.
    case credentials(String)
  }

  /// What a call is signed with.
  struct Opened {
    var settings: AppStoreSettings
    var api: AppStoreServerAPISettings
    var key: ECKey

    /// A bearer token for one call, issued at `now`.
    func token(now: Date) throws -> String {
      try AppStoreServerToken.make(settings: api, bundleId: settings.bundleId, key: key, now: now)
    }
  }

  func open(appId: Int64, settings: AppStoreSettings?) throws(Failure) -> Opened {
    guard let settings, let api = settings.serverAPI else {
      throw .notConfigured("the configuration has no app_store.server_api {issuer_id, key_id}")
    }
    let stored: StoredAppStoreCredentials?
    do { stored = try store.appStoreCredentials(appId: appId) } catch {
      throw .credentials("the In-App Purchase key cannot be read: \(error)")
    }
    guard let stored else { throw .credentials("no In-App Purchase key was uploaded") }
    guard let secrets else {
      throw .credentials("the server has no secrets key to open the In-App Purchase key with")
    }
    do {
      return Opened(settings: settings, api: api, key: try ECKey(privatePEM: try secrets.open(stored.sealedKey)))
    } catch {
      throw .credentials("the stored In-App Purchase key cannot be opened: \(error)")
    }
  }
}
