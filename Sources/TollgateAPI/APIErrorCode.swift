/// Every `error.code` the server answers with, and the HTTP status that goes with it. The
/// server maps errors to responses through this enum only; the SDK decodes codes with it;
/// a test keeps the API document's list of codes equal to these cases.
public enum APIErrorCode: String, Codable, Sendable, CaseIterable {
  /// The body is not JSON, or not the shape this route reads.
  case malformedJSON = "malformed_json"
  /// A required query parameter is absent.
  case missingParameter = "missing_parameter"
  /// A query parameter has a value the route cannot use.
  case badParameter = "bad_parameter"
  /// No `Authorization` header.
  case missingCredentials = "missing_credentials"
  /// A key this server does not know.
  case invalidCredentials = "invalid_credentials"
  /// A key that was revoked.
  case keyRevoked = "key_revoked"
  /// The key's expiry date has passed.
  case keyExpired = "key_expired"
  /// The wrong kind of key (a public key on an admin route).
  case forbidden
  /// No route for this path.
  case routeNotFound = "route_not_found"
  /// No such profile in this app.
  case profileNotFound = "profile_not_found"
  /// No such placement in this app's configuration.
  case placementNotFound = "placement_not_found"
  /// The app has no configuration yet.
  case configNotFound = "config_not_found"
  /// No app by that name.
  case appNotFound = "app_not_found"
  /// No key with that id in this app.
  case keyNotFound = "key_not_found"
  /// No configuration revision with that number.
  case revisionNotFound = "revision_not_found"
  /// No webhook with that id in the configuration.
  case webhookNotFound = "webhook_not_found"
  /// No webhook delivery with that id.
  case deliveryNotFound = "delivery_not_found"
  /// The console's charts need Debian's `libjs-chart.js`.
  case chartNotInstalled = "chart_not_installed"
  /// The path exists, the method does not (`Allow` lists those that do).
  case methodNotAllowed = "method_not_allowed"
  /// Another profile carries this customer user id.
  case customerUserIdTaken = "customer_user_id_taken"
  /// Revoking this key would leave the app without a secret key.
  case lastSecretKey = "last_secret_key"
  /// The body is over the size limit.
  case payloadTooLarge = "payload_too_large"
  /// The body is not `application/json`.
  case unsupportedMediaType = "unsupported_media_type"
  /// A request body broke a rule; `details` names every path.
  case validationFailed = "validation_failed"
  /// A configuration document broke a rule; `details` names every path.
  case invalidConfig = "invalid_config"
  /// Webhook secrets cannot be sealed: the server has no secrets key.
  case secretsKeyMissing = "secrets_key_missing"
  /// Apple Ads credentials were sent for an app whose configuration has no `apple_ads_api`.
  case appleAdsNotConfigured = "apple_ads_not_configured"
  /// The Apple Ads private key is not a PEM P-256 (prime256v1) private key.
  case invalidPrivateKey = "invalid_private_key"
  /// An In-App Purchase key was sent for an app whose configuration has no `app_store.server_api`.
  case appStoreServerAPINotConfigured = "app_store_server_api_not_configured"
  /// A spend file has rows that cannot be read; `details` names each.
  case invalidSpendFile = "invalid_spend_file"
  /// An uploaded image's header cannot be read, or it has too many pixels.
  case invalidAsset = "invalid_asset"
  /// No asset has this SHA-256.
  case assetNotFound = "asset_not_found"
  /// No saved list with this id in this app.
  case listNotFound = "list_not_found"
  /// The saved list is named by an audience of the current configuration.
  case listInUse = "list_in_use"
  /// No Apple Ads credentials (or In-App Purchase key) were uploaded for this app.
  case credentialsNotFound = "credentials_not_found"
  /// Apple knows no order with this id for the app (Look Up Order ID answered invalid or empty).
  case orderNotFound = "order_not_found"
  /// No profile import with this id in this app.
  case importNotFound = "import_not_found"
  /// No access level with this id in the app's configuration.
  case accessLevelNotFound = "access_level_not_found"
  /// The profile has no standing hand-given grant of this access level.
  case grantNotFound = "grant_not_found"
  /// The profile owns no App Store transaction Apple's history could be asked by.
  case noAppStoreTransactions = "no_app_store_transactions"
  /// Apple's App Store Server API refused or failed the call; the message says what it answered.
  case appStoreAPIFailed = "app_store_api_failed"
  /// Signed App Store data arrived for an app whose configuration has no `app_store`.
  case appStoreNotConfigured = "app_store_not_configured"
  /// Not a compact JWS.
  case malformedJWS = "malformed_jws"
  /// Not ES256, or the signature does not match.
  case invalidSignature = "invalid_signature"
  /// The certificate chain is not Apple's.
  case untrustedCertificate = "untrusted_certificate"
  /// Signed by Apple for another app.
  case bundleMismatch = "bundle_mismatch"
  /// Signed by Apple in an environment this app does not accept.
  case environmentNotAllowed = "environment_not_allowed"
  /// Over a rate limit, or too many failed sign-ins; `Retry-After` says when to come back.
  case rateLimited = "rate_limited"
  /// The password was right; the account also needs its second factor's code.
  case twoFactorCodeRequired = "two_factor_code_required"
  /// The app's owners require two-factor sign-in and this person has not set it up.
  case twoFactorRequired = "two_factor_required"
  /// The console session ended (signed out, expired, or the person was disabled): sign in again.
  case sessionExpired = "session_expired"
  /// A state-changing console request without the session's CSRF token or from another origin.
  case csrfFailed = "csrf_failed"
  /// No invitation has this link.
  case invitationNotFound = "invitation_not_found"
  /// The invitation's time is up: ask for a new one.
  case invitationExpired = "invitation_expired"
  /// The invitation was accepted already.
  case invitationUsed = "invitation_used"
  /// The new password is too short, too common or contains the e-mail address.
  case weakPassword = "weak_password"
  /// No person with this id is a member of the app.
  case personNotFound = "person_not_found"
  /// The server failed; the error is logged.
  case internalError = "internal_error"
  /// Too many Apple Ads tokens wait for Apple.
  case attributionQueueFull = "attribution_queue_full"
  /// The disk is full or failing; nothing was written.
  case storageUnavailable = "storage_unavailable"
  /// The database cannot be reached.
  case databaseUnavailable = "database_unavailable"
  /// Beyond the connection limit.
  case serverBusy = "server_busy"

  /// The HTTP status every answer with this code has.
  public var status: Int {
    switch self {
    case .malformedJSON, .missingParameter, .badParameter: 400
    case .missingCredentials, .invalidCredentials, .keyRevoked, .keyExpired, .sessionExpired, .twoFactorCodeRequired:
      401
    case .forbidden, .csrfFailed, .twoFactorRequired: 403
    case .routeNotFound, .profileNotFound, .placementNotFound, .configNotFound, .appNotFound, .keyNotFound,
      .revisionNotFound, .webhookNotFound, .deliveryNotFound, .chartNotInstalled, .credentialsNotFound,
      .assetNotFound, .listNotFound, .orderNotFound, .accessLevelNotFound, .grantNotFound, .importNotFound,
      .invitationNotFound, .personNotFound:
      404
    case .methodNotAllowed: 405
    case .customerUserIdTaken, .lastSecretKey, .listInUse, .noAppStoreTransactions, .invitationUsed: 409
    case .invitationExpired: 410
    case .payloadTooLarge: 413
    case .unsupportedMediaType: 415
    case .validationFailed, .invalidConfig, .secretsKeyMissing, .appStoreNotConfigured, .appleAdsNotConfigured,
      .invalidPrivateKey, .appStoreServerAPINotConfigured, .invalidSpendFile, .invalidAsset, .malformedJWS,
      .invalidSignature, .untrustedCertificate, .bundleMismatch, .environmentNotAllowed,
      .weakPassword:
      422
    case .rateLimited: 429
    case .internalError: 500
    case .appStoreAPIFailed: 502
    case .attributionQueueFull, .storageUnavailable, .databaseUnavailable, .serverBusy: 503
    }
  }
}
