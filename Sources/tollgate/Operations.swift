import Foundation
import TollgateAPI
import TollgateCommandLine
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// The operator's commands: keys, configuration history and rollback, the audit log,
/// backups. They act on the database directly (the running server sees the changes: keys
/// within a second, configurations within its next refresh).
enum Operations {
  /// Opens the database and finds the app named by `--app`.
  static func open(_ options: inout Options) throws -> (any Database, AppRecord) {
    let name = try options.required("--app")
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    guard let app = try store.app(named: name) else {
      store.close()
      throw Failure.missing("no app named \(name); create it with: tollgate keys create --app \(name)")
    }
    return (store, app)
  }

  static func keysList(_ options: inout Options) throws {
    let (store, app) = try open(&options)
    defer { store.close() }
    try options.finish()
    print(pad(["id", "kind", "scopes", "created", "last used", "revoked", "expires", "label"]))
    for key in try store.keys(appId: app.id) {
      print(
        pad([
          key.id, key.kind.rawValue, key.kind == .secretKey ? key.scopes.map(\.rawValue).joined(separator: ",") : "-",
          Timestamp.string(key.createdAt), key.lastUsedAt.map(Timestamp.string) ?? "-",
          key.revokedAt.map(Timestamp.string) ?? "-", key.expiresAt.map(Timestamp.string) ?? "-", key.label ?? "",
        ]))
    }
  }

  /// One new key of a kind for an existing app (`keys create --app NAME --kind public|secret`),
  /// a secret one limited by `--scope` and `--expires`.
  static func keysCreateOne(_ options: inout Options, kind kindName: String) throws {
    guard let kind = KeyKind(rawValue: kindName) else { throw Failure("--kind is public or secret") }
    let label = options.value("--label", env: nil)
    var scopes: [KeyScope] = [.all]
    if let text = options.value("--scope", env: nil) {
      guard kind == .secretKey else { throw Failure("--scope is for secret keys") }
      let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      let parsed = names.compactMap(KeyScope.init(rawValue:))
      guard !names.isEmpty, parsed.count == names.count else {
        throw Failure(
          "--scope takes " + KeyScope.allCases.map(\.rawValue).joined(separator: ", ") + " (comma-separated)")
      }
      scopes = parsed.contains(.all) ? [.all] : parsed
    }
    var expiresAt: Date?
    if let text = options.value("--expires", env: nil) {
      guard text.hasSuffix("d"), let days = Int(text.dropLast()), (1...3_650).contains(days) else {
        throw Failure("--expires takes days, e.g. 90d (1d to 3650d)")
      }
      expiresAt = Date().addingTimeInterval(Double(days) * 86_400)
    }
    let (store, app) = try open(&options)
    defer { store.close() }
    try options.finish()
    let (key, record) = try KeyIssuer(apps: store).create(
      appId: app.id, kind: kind, label: label, scopes: scopes, expiresAt: expiresAt, by: "cli")
    print(
      """
      id:      \(record.id)
      key:     \(key)
      """ + (kind == .secretKey ? "\nscopes:  \(record.scopes.map(\.rawValue).joined(separator: ", "))" : "")
        + (record.expiresAt.map { "\nexpires: \(Timestamp.string($0))" } ?? "")
        + "\nKeys are stored hashed: this is the only time it is shown.")
  }

  static func keysRevoke(_ options: inout Options) throws {
    guard let id = options.positional() else { throw Failure("keys revoke needs a KEY_ID (see keys list)") }
    let (store, app) = try open(&options)
    defer { store.close() }
    try options.finish()
    let key = try KeyIssuer(apps: store).revoke(appId: app.id, keyId: id, by: "cli")
    print("\(key.id) (\(key.kind.rawValue)) revoked at \(key.revokedAt.map(Timestamp.string) ?? "-")")
  }

  static func configHistory(_ options: inout Options) throws {
    let limit = try options.value("--limit", env: nil).map(positiveNumber) ?? 50
    let (store, app) = try open(&options)
    defer { store.close() }
    try options.finish()
    print(pad(["revision", "applied", "by", "summary"]))
    for entry in try store.configHistory(appId: app.id, limit: limit) {
      let mark = entry.revision == app.revision ? "*" : ""
      print(
        pad([
          "\(entry.revision)\(mark)", Timestamp.string(entry.appliedAt), entry.appliedBy ?? "-", entry.summary ?? "",
        ]))
    }
  }

  static func configShow(_ options: inout Options) throws {
    guard let text = options.positional(), let revision = Int64(text) else {
      throw Failure("config show needs a REVISION number")
    }
    let (store, app) = try open(&options)
    defer { store.close() }
    try options.finish()
    guard let record = try store.config(appId: app.id, revision: revision) else {
      throw Failure.missing("app \(app.name) has no revision \(revision)")
    }
    FileHandle.standardOutput.write(record.document)
    if record.document.last != UInt8(ascii: "\n") { print() }
  }

  static func configRollback(_ options: inout Options) throws {
    guard let text = options.positional(), let revision = Int64(text) else {
      throw Failure("config rollback needs a REVISION number")
    }
    let databasePath = options.databasePath
    let secrets = try CommandLineTool.secretsBox(&options, databasePath: databasePath)
    options.database = databasePath
    let (store, app) = try open(&options)
    defer { store.close() }
    try options.finish()
    guard let record = try store.config(appId: app.id, revision: revision) else {
      throw Failure.missing("app \(app.name) has no revision \(revision)")
    }
    let (config, _) = try ConfigImporter(database: store, secrets: secrets).applyReturningSecrets(
      record.document, appId: app.id, by: "cli", note: "rollback to \(revision)")
    print("revision \(config.revision) applied: the document of revision \(revision)")
  }

  static func audit(_ options: inout Options) throws {
    let limit = try options.value("--limit", env: nil).map(positiveNumber) ?? 100
    let actor = options.value("--actor", env: nil)
    let (store, app) = try open(&options)
    defer { store.close() }
    try options.finish()
    print(pad(["seq", "at", "actor", "from", "action", "detail"]))
    for entry in try store.auditLog(appId: app.id, before: nil, limit: limit, actor: actor) {
      let from = [entry.address, entry.session].compactMap { $0 }.joined(separator: " ")
      print(
        pad([
          "\(entry.seq)", Timestamp.string(entry.at), entry.actor, from.isEmpty ? "-" : from, entry.action,
          entry.detail,
        ]))
    }
  }

  static func backup(_ options: inout Options) throws {
    let target = try options.required("--to")
    let database = options.databasePath
    try options.finish()
    guard !StoreLocation.isPostgres(database) else {
      throw Failure(
        "PostgreSQL databases are backed up with pg_dump (see docs/operations.md), not by tollgate")
    }
    try SQLiteStore.backup(database: database, to: target)
    let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
    print("backup of \(database) written to \(target) (\(size) bytes, integrity checked)")
    let key = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("secrets.key").path
    if FileManager.default.fileExists(atPath: key) {
      print("webhook signing secrets are sealed with \(key), which is not in the backup: keep a copy of it too")
    }
  }

  static func restore(_ options: inout Options) throws {
    let source = try options.required("--from")
    let database = options.databasePath
    try options.finish()
    guard !StoreLocation.isPostgres(database) else {
      throw Failure("PostgreSQL databases are restored with pg_restore (see docs/operations.md)")
    }
    try SQLiteStore.restore(from: source, to: database)
    print("\(source) restored as \(database); start the server on it with --database \(database)")
  }

  static func positiveNumber(_ text: String) throws -> Int {
    guard let value = Int(text), value > 0 else { throw Failure("--limit takes a positive number") }
    return value
  }

  /// Columns padded for a terminal.
  static func pad(_ columns: [String]) -> String {
    let widths = [20, 8, 24, 24, 24]
    return columns.enumerated().map { index, text in
      index < widths.count && index < columns.count - 1
        ? text.padding(toLength: max(widths[index], text.count), withPad: " ", startingAt: 0) : text
    }.joined(separator: "  ")
  }
}
