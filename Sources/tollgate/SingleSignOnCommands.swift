import Foundation
import TollgateCommandLine
import TollgateDomain
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate sso set|show|remove`: single sign-on with one OpenID Connect provider, on the
/// database directly (a running server reads the settings at each sign-in).
enum SingleSignOnCommands {
  static func set(_ options: inout Options) async throws {
    let issuer = try options.required("--issuer")
    let clientId = try options.required("--client-id")
    let secretFile = try options.required("--client-secret-file")
    let label = options.value("--label", env: nil)
    let domains = options.value("--allowed-domains", env: nil)?.split(separator: ",").map(String.init) ?? []
    let role = options.value("--default-role", env: nil)
    let app = options.value("--app", env: nil)
    let skipCheck = options.flag("--skip-check")
    let base = UserCommands.base(&options)
    let databasePath = options.databasePath
    let box = try CommandLineTool.secretsBox(&options, databasePath: databasePath)
    try options.finish()
    let secret: String
    do { secret = try String(contentsOfFile: secretFile, encoding: .utf8) } catch {
      throw Failure("cannot read \(secretFile)")
    }
    let store = try StoreLocation.open(databasePath, listenURL: options.databaseListenURL, connections: 1).database
    defer { store.close() }
    let record: SingleSignOnRecord
    do {
      record = try await SingleSignOnService(database: store, secrets: box).configure(
        .init(
          issuer: issuer, clientId: clientId, clientSecret: secret, label: label, allowedDomains: domains,
          defaultApp: app, defaultRole: role),
        check: !skipCheck, by: "cli")
    } catch let error as DomainError {
      throw Failure(error.message)
    }
    print(
      "single sign-on with \(record.settings.issuer) is on: the sign-in page offers \"Sign in with \(record.settings.label)\""
    )
    describe(record, store: store, base: base)
  }

  static func show(_ options: inout Options) throws {
    let base = UserCommands.base(&options)
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    defer { store.close() }
    try options.finish()
    guard let record = try store.singleSignOn() else {
      print("single sign-on is off (tollgate sso set --issuer URL --client-id ID --client-secret-file FILE)")
      return
    }
    print("issuer: \(record.settings.issuer)")
    print("client id: \(record.settings.clientId)")
    print("button: Sign in with \(record.settings.label)")
    print("set \(Timestamp.string(record.updatedAt)) by \(record.updatedBy)")
    describe(record, store: store, base: base)
  }

  static func remove(_ options: inout Options) throws {
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    defer { store.close() }
    try options.finish()
    try SingleSignOnService(database: store, secrets: nil).remove()
    print(
      "single sign-on is off; people who signed in with it keep their accounts (an owner can send them a password-reset link)"
    )
  }

  private static func describe(_ record: SingleSignOnRecord, store: any Database, base: String) {
    let settings = record.settings
    print(
      "allowed e-mail domains: "
        + (settings.allowedDomains.isEmpty
          ? "any (only people invited or already members)" : settings.allowedDomains.joined(separator: ", ")))
    if let membership = settings.defaultMembership {
      let app = (try? store.app(id: membership.appId))??.name ?? "app \(membership.appId)"
      print("someone nobody invited joins \(app) as \(membership.role.rawValue)")
    } else {
      print("someone nobody invited is refused (invite them with: tollgate users add EMAIL --role ROLE --app NAME)")
    }
    print("register this redirect URI at the provider: \(SingleSignOnService.redirectURI(base: base))")
  }
}
