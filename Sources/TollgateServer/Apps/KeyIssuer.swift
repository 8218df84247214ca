import Foundation

/// Creates apps and their keys. Keys are shown once and stored only as SHA-256 hashes.
public struct KeyIssuer: Sendable {
  /// A freshly issued key pair, in clear text: the only time it is visible.
  public struct IssuedKeys: Sendable {
    /// The app they belong to.
    public let app: AppRecord
    /// `tg_pub_…`: goes into the iOS app (`Authorization: Api-Key …`).
    public let publicKey: String
    /// `tg_sec_…`: for admin routes (`Authorization: Bearer …`); keep it secret.
    public let secretKey: String
  }

  let store: any Store
  let time: any TimeSource

  /// Creates an issuer over a store.
  public init(store: any Store, time: any TimeSource = SystemTimeSource()) {
    self.store = store
    self.time = time
  }

  /// Creates the app if it does not exist, then a new public and secret key for it.
  public func issue(appName: String) throws -> IssuedKeys {
    let app = try store.app(named: appName) ?? store.createApp(name: appName)
    let publicKey = "tg_pub_" + Digest.hex(Digest.randomBytes(16))
    let secretKey = "tg_sec_" + Digest.hex(Digest.randomBytes(24))
    try store.addKey(appId: app.id, kind: .publicKey, hash: Self.hash(publicKey), at: time.now())
    try store.addKey(appId: app.id, kind: .secretKey, hash: Self.hash(secretKey), at: time.now())
    return IssuedKeys(app: app, publicKey: publicKey, secretKey: secretKey)
  }

  /// What the store keeps of a key.
  public static func hash(_ key: String) -> String { Digest.sha256Hex(key) }
}
