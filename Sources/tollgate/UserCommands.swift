import Foundation
import TollgateCommandLine
import TollgateDomain
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate users …`: people who sign in to the console. Invitations are links the operator
/// hands over; nothing is e-mailed.
enum UserCommands {
  /// Where the console is reached, for links (`--public-url`, else the default address).
  static func base(_ options: inout Options) -> String {
    options.value("--public-url", env: "TOLLGATE_PUBLIC_URL") ?? "http://127.0.0.1:8080"
  }

  static func add(_ options: inout Options) throws {
    guard let email = options.positional() else { throw Failure("users add needs an EMAIL") }
    let role = try options.required("--role")
    let base = base(&options)
    let (store, app) = try Operations.open(&options)
    defer { store.close() }
    try options.finish()
    let (token, invitation) = try PeopleService(database: store).invite(
      appId: app.id, email: email, role: role, by: "cli")
    print(
      """
      Invited \(invitation.email) to \(app.name) as \(invitation.role.rawValue), until \(Timestamp.string(invitation.expiresAt)).
      Send them this link (it works once): \(PeopleService.link(base: base, token: token))
      """)
  }

  static func list(_ options: inout Options) throws {
    let (store, app) = try Operations.open(&options)
    defer { store.close() }
    try options.finish()
    let (members, invitations) = try PeopleService(database: store).members(appId: app.id)
    print(Operations.pad(["email", "role", "joined", "state", "name"]))
    for member in members {
      let state =
        member.person.disabledAt != nil
        ? "disabled" : member.lockedUntil.map { "locked until " + Timestamp.string($0) } ?? "active"
      print(
        Operations.pad([
          member.person.email, member.role.rawValue, Timestamp.string(member.person.createdAt), state,
          member.person.name ?? "",
        ]))
    }
    for invitation in invitations {
      print(
        Operations.pad([
          invitation.email, invitation.role.rawValue, "-", "invited until " + Timestamp.string(invitation.expiresAt),
          "",
        ]))
    }
  }

  static func disable(_ options: inout Options, disabled: Bool) throws {
    guard let email = options.positional() else {
      throw Failure("users \(disabled ? "disable" : "enable") needs an EMAIL")
    }
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    defer { store.close() }
    try options.finish()
    guard let person = try PeopleService(database: store).setDisabled(email: email, disabled: disabled, by: "cli")
    else { throw Failure.missing("nobody signs in as \(email)") }
    print(disabled ? "\(person.email) is disabled; their sessions ended." : "\(person.email) can sign in again.")
  }

  static func resetPassword(_ options: inout Options) throws {
    guard let email = options.positional() else { throw Failure("users reset-password needs an EMAIL") }
    let base = base(&options)
    let (store, app) = try Operations.open(&options)
    defer { store.close() }
    try options.finish()
    guard let token = try PeopleService(database: store).resetPassword(appId: app.id, email: email, by: "cli") else {
      throw Failure.missing("\(email) is not a member of \(app.name)")
    }
    print(
      """
      A password-reset link for \(PeopleService.normalized(email: email)) (it works once, for 7 days; their sessions end when it is used):
      \(PeopleService.link(base: base, token: token))
      """)
  }

  static func resetTwoFactor(_ options: inout Options) throws {
    guard let email = options.positional() else { throw Failure("users reset-two-factor needs an EMAIL") }
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    defer { store.close() }
    try options.finish()
    guard try PeopleService(database: store).resetTwoFactor(email: email, by: "cli") else {
      throw Failure.missing("nobody signs in as \(email)")
    }
    print(
      "\(PeopleService.normalized(email: email)) signs in with the password alone until they set up a new second factor."
    )
  }

  static func unlock(_ options: inout Options) throws {
    guard let email = options.positional() else { throw Failure("users unlock needs an EMAIL") }
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    defer { store.close() }
    try options.finish()
    guard try PeopleService(database: store).unlock(email: email, by: "cli") else {
      throw Failure.missing("nobody signs in as \(email)")
    }
    print("\(PeopleService.normalized(email: email)) may sign in again at once.")
  }
}
