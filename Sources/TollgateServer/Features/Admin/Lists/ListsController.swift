import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `PUT`/`GET`/`DELETE /v1/admin/lists/{listId}` and `GET /v1/admin/lists`: saved lists for
/// `$inGroup`. The PUT body is streamed (`SavedListUpload`), up to 64 MiB.
struct ListsController: Sendable {
  /// Where list bodies are streamed instead of collected.
  static let streamedRoute = StreamedBodyRoute(
    method: "PUT", pathPrefix: "/v1/admin/lists/", limit: SavedListUpload.maximumBytes
  ) { request in SavedListUpload(contentType: request.header("content-type")) }

  let auth: Authenticator
  let lists: SavedListService

  func register(on router: inout Router) {
    router.add("PUT", "/v1/admin/lists/{listId}", needs: .configWrite, auth) { request, caller in
      let id = request.parameter("listId")
      try SavedListService.checkId(id)
      let values = try SavedListUpload.values(of: SavedListUpload.reading(of: request))
      let (info, created) = try lists.put(appId: caller.appId, id: id, values: values, by: caller.actor)
      return .json(
        SavedListPayload(info, usedBy: try lists.users(appId: caller.appId, id: id)), status: created ? 201 : 200)
    }
    router.add("GET", "/v1/admin/lists/{listId}", needs: .configRead, auth) { request, caller in
      let id = request.parameter("listId")
      let info = try lists.info(appId: caller.appId, id: id)
      return .json(SavedListPayload(info, usedBy: try lists.users(appId: caller.appId, id: id)))
    }
    router.add("GET", "/v1/admin/lists", needs: .configRead, auth) { request, caller in
      return .json(["lists": try lists.all(appId: caller.appId).map { SavedListPayload($0, usedBy: nil) }])
    }
    router.add("DELETE", "/v1/admin/lists/{listId}", needs: .configWrite, auth) { request, caller in
      try lists.delete(appId: caller.appId, id: request.parameter("listId"), by: caller.actor)
      return Response(status: 204, headers: [], body: Data())
    }
  }
}

/// A saved list as the admin API shows it (never its values).
struct SavedListPayload: Codable, Sendable {
  var id: String
  var size: Int
  var checksum: String
  var updatedAt: String
  /// The audiences of the current configuration naming it (only for one list).
  var usedBy: [String]?

  init(_ info: SavedListInfo, usedBy: [String]?) {
    id = info.id
    size = info.size
    checksum = info.checksum
    updatedAt = Timestamp.string(info.updatedAt)
    self.usedBy = usedBy
  }

  enum CodingKeys: String, CodingKey {
    case id, size, checksum
    case updatedAt = "updated_at"
    case usedBy = "used_by"
  }
}
