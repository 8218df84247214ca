import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The rules of saved lists: a list is replaced whole (values checked, made distinct), a
/// change reaches every instance like a configuration change, and a list the current
/// configuration names cannot be deleted. Shared by the admin API and `tollgate lists`.
public struct SavedListService: Sendable {
  let apps: any AppRepository
  let documents: any ConfigRepository
  let savedLists: any SavedListRepository
  let time: any TimeSource
  /// Told after a change, so this instance serves it at once (others hear the announcement).
  let changed: @Sendable () -> Void

  /// Creates the service (`changed` refreshes this process's configuration cache).
  public init(
    apps: any AppRepository, documents: any ConfigRepository, savedLists: any SavedListRepository,
    time: any TimeSource = SystemTimeSource(), changed: @escaping @Sendable () -> Void = {}
  ) {
    self.apps = apps
    self.documents = documents
    self.savedLists = savedLists
    self.time = time
    self.changed = changed
  }

  /// Stores the values as the list `id`; true when it was new. The answer is what was stored,
  /// not read back: a DELETE of the same list landing in between made it a 404.
  public func put(appId: Int64, id: String, values: SavedListValues, by actor: String) throws -> (SavedListInfo, Bool) {
    try Self.checkId(id)
    let now = time.now()
    let created = try savedLists.putSavedList(appId: appId, id: id, values: values, at: now)
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: now, actor: actor, action: "list.put",
        detail: AuditDetail.json([
          "list": .string(id), "size": .int(Int64(values.values.count)), "checksum": .string(values.checksum),
        ])))
    changed()
    return (SavedListInfo(id: id, size: values.values.count, checksum: values.checksum, updatedAt: now), created)
  }

  /// The list's size, checksum and time, else 404 `list_not_found`.
  public func info(appId: Int64, id: String) throws -> SavedListInfo {
    guard let info = try savedLists.savedListInfo(appId: appId, id: id) else {
      throw DomainError.notFound(.listNotFound, "No saved list \(id) in this app.")
    }
    return info
  }

  /// Every list of the app.
  public func all(appId: Int64) throws -> [SavedListInfo] { try savedLists.savedListInfos(appId: appId) }

  /// The audiences of the current configuration whose rules name the list.
  public func users(appId: Int64, id: String) throws -> [String] {
    guard let record = try documents.currentConfig(appId: appId) else { return [] }
    return try ConfigValidator.compile(record.document, revision: record.revision).audiences(using: id)
  }

  /// Deletes the list; 409 `list_in_use` while an audience of the current configuration names
  /// it, 404 `list_not_found` when there is none.
  public func delete(appId: Int64, id: String, by actor: String) throws {
    let users = try users(appId: appId, id: id)
    guard users.isEmpty else {
      throw DomainError(
        .listInUse,
        "Audience(s) \(users.joined(separator: ", ")) use the list: apply a configuration without it first.",
        details: users.map { .init(path: "$.audiences[\($0)]", message: "names the list \(id)") })
    }
    guard try savedLists.deleteSavedList(appId: appId, id: id) else {
      throw DomainError.notFound(.listNotFound, "No saved list \(id) in this app.")
    }
    try apps.audit(
      appId: appId,
      AuditRecord(at: time.now(), actor: actor, action: "list.deleted", detail: AuditDetail.json(["list": .string(id)]))
    )
    changed()
  }

  /// A file's values (`tollgate lists put`): a JSON array when it starts with `[`, else one
  /// value a line — read exactly as the admin API reads a body.
  public static func values(inFile data: Data) throws -> SavedListValues {
    let json = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "[")
    let upload = SavedListUpload(contentType: json ? "application/json" : "text/plain")
    data.withUnsafeBytes { upload.append($0.bindMemory(to: UInt8.self)) }
    return try SavedListUpload.values(of: upload.reading())
  }

  static func checkId(_ id: String) throws {
    guard id.range(of: ConfigValidator.idPattern, options: .regularExpression) != nil else {
      throw DomainError(.badParameter, "A list id is 1–64 of A–Z a–z 0–9 _ -.")
    }
  }
}
