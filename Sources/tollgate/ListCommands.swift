import Foundation
import TollgateCommandLine
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate lists …`: saved lists for `$inGroup`, written to the database directly (running
/// servers hear of a change as of a configuration change).
enum ListCommands {
  static func put(_ options: inout Options) throws {
    guard let id = options.positional(), let file = options.positional() else {
      throw Failure("lists put needs an ID and a FILE")
    }
    let (store, app) = try Operations.open(&options)
    defer { store.close() }
    try options.finish()
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw Failure("cannot read \(file)") }
    let values = try SavedListService.values(inFile: data)
    let (info, created) = try SavedListService(database: store).put(appId: app.id, id: id, values: values, by: "cli")
    print(
      "\(created ? "created" : "replaced") list \(info.id) of \(app.name): \(info.size) values, checksum \(info.checksum)"
    )
  }

  static func show(_ options: inout Options) throws {
    guard let id = options.positional() else { throw Failure("lists get needs an ID") }
    let (store, app) = try Operations.open(&options)
    defer { store.close() }
    try options.finish()
    let service = SavedListService(database: store)
    let info = try service.info(appId: app.id, id: id)
    let users = try service.users(appId: app.id, id: id)
    print(
      """
      list:     \(info.id)
      size:     \(info.size)
      checksum: \(info.checksum)
      updated:  \(Timestamp.string(info.updatedAt))
      used by:  \(users.isEmpty ? "-" : users.joined(separator: ", "))
      """)
  }

  static func list(_ options: inout Options) throws {
    let (store, app) = try Operations.open(&options)
    defer { store.close() }
    try options.finish()
    print(Operations.pad(["id", "size", "updated", "checksum"]))
    for info in try SavedListService(database: store).all(appId: app.id) {
      print(Operations.pad([info.id, String(info.size), Timestamp.string(info.updatedAt), info.checksum]))
    }
  }

  static func delete(_ options: inout Options) throws {
    guard let id = options.positional() else { throw Failure("lists delete needs an ID") }
    let (store, app) = try Operations.open(&options)
    defer { store.close() }
    try options.finish()
    try SavedListService(database: store).delete(appId: app.id, id: id, by: "cli")
    print("deleted list \(id) of \(app.name)")
  }
}
