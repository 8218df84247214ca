import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Saved lists for `$inGroup`: the hash set, the streamed upload, the admin API, the rules
/// that name them and the configuration's guard against unknown lists.
@Suite("Saved lists")
struct SavedListTests {
  @Test("membership is exact: every stored value found, nothing else")
  func membership() {
    let values = (0..<20_000).map { "user-\($0)" }
    let list = SavedList(id: "users", values: values)
    #expect(list.count == 20_000)
    #expect(values.allSatisfy(list.contains))
    #expect(!(20_000..<30_000).contains { list.contains("user-\($0)") })
    #expect(!list.contains("") && !list.contains("user-") && !list.contains("USER-1"))
    #expect(list.contains(JSONValue.int(7)) == false)
    let numbers = SavedList(id: "campaigns", values: ["101", "102"])
    #expect(numbers.contains(JSONValue.int(102)) && numbers.contains(JSONValue.double(101)))
    #expect(!numbers.contains(JSONValue.double(101.5)) && !numbers.contains(JSONValue.bool(true)))
    #expect(numbers.contains(JSONValue.array([.string("x"), .int(101)])))
    #expect(!SavedList(id: "empty", values: []).contains("x"))
  }

  @Test("values are made distinct and sorted; the checksum ignores order and repeats")
  func normalised() throws {
    let one = try SavedListValues.make(["b", "a", "c", "a"]) { "$[\($0)]" }.get()
    let two = try SavedListValues.make(["c", "b", "a"]) { "$[\($0)]" }.get()
    #expect(one.values == ["a", "b", "c"] && one.checksum == two.checksum)
    #expect(one.checksum == Digest.sha256Hex("a\nb\nc"))
    #expect(SavedListValues(stored: one.text) == one)
    guard
      case .failure(let error) = SavedListValues.make(
        ["ok", "", String(repeating: "x", count: 257), "a\rb", "c\r\nd", "n\u{0}ul"], positions: { "line \($0 + 1)" })
    else {
      Issue.record("bad values accepted")
      return
    }
    #expect(error.details?.map(\.path) == ["line 2", "line 3", "line 4", "line 5", "line 6"])
  }

  @Test("more distinct values than the limit (1 000 000; 10 here) are refused; repeats do not count")
  func tooMany() throws {
    #expect(SavedList.maximumValues == 1_000_000)
    let eleven = (0...10).map(String.init)
    guard case .failure(let error) = SavedListValues.make(eleven, limit: 10, positions: { "$[\($0)]" }) else {
      Issue.record("accepted \(eleven.count) values")
      return
    }
    #expect(error.code == .validationFailed && error.details?.first?.message.contains("at most 10") == true)
    let repeated = try SavedListValues.make(Array(eleven.prefix(10)) + ["0", "1"], limit: 10) { "$[\($0)]" }.get()
    #expect(repeated.values.count == 10)
  }

  @Test("a text body read in chunks of any size gives the same values (CRLF, blank lines, a last line without newline)")
  func chunkedText() throws {
    let body = Data("alpha\r\nbeta\n\n  spaced  \ngamma\nalpha\ndelta".utf8)
    for size in [1, 2, 3, 7, 64, body.count] {
      let sink = SavedListUpload(contentType: "text/plain; charset=utf-8")
      var offset = 0
      while offset < body.count {
        let chunk = body[offset..<min(offset + size, body.count)]
        chunk.withUnsafeBytes { sink.append($0.bindMemory(to: UInt8.self)) }
        offset += size
      }
      let values = try SavedListUpload.values(of: sink.reading())
      #expect(values.values == ["  spaced  ", "alpha", "beta", "delta", "gamma"], "chunks of \(size)")
    }
  }

  @Test(
    "refused uploads: invalid UTF-8 (its line), a JSON body that is not an array of strings and integers, another media type"
  )
  func refusedUploads() {
    func reading(_ body: Data, _ type: String?) -> SavedListUpload.Reading {
      let sink = SavedListUpload(contentType: type)
      body.withUnsafeBytes { sink.append($0.bindMemory(to: UInt8.self)) }
      return sink.reading()
    }
    func error(_ reading: SavedListUpload.Reading) -> DomainError? {
      if case .problem(let error) = reading { return error }
      return nil
    }
    var invalid = Data("ok\n".utf8)
    invalid.append(contentsOf: [0xFF, 0xFE, 0x0A])
    #expect(error(reading(invalid, "text/plain"))?.details?.first?.path == "line 2")
    #expect(error(reading(Data(#"{"a":1}"#.utf8), "application/json"))?.code == .malformedJSON)
    #expect(
      error(reading(Data(#"["a", 1.5, null]"#.utf8), "application/json"))?.details?.map(\.path) == ["$[1]", "$[2]"])
    #expect(error(reading(Data("a".utf8), "application/xml"))?.code == .unsupportedMediaType)
    #expect(error(reading(Data("a".utf8), nil))?.code == .unsupportedMediaType)
    guard case .values(let values, nil) = reading(Data(#"["u1", 101, "u1"]"#.utf8), "application/json") else {
      Issue.record("JSON array refused")
      return
    }
    #expect(values == ["u1", "101", "u1"])
  }

  static let listConfig = """
    {"flows": [{"id": "winback", "products": ["pro"]}, {"id": "standard", "products": ["pro"]}],
     "audiences": [{"id": "churned", "rule": {"customer_user_id": {"$inGroup": "churned_q3"}}}],
     "placements": [{"id": "main", "targets": [{"audience": "churned", "flow": "winback"}], "default": "standard"}]}
    """

  func flow(_ server: TestServer, _ profile: String) async throws -> String? {
    let answer = try await server.sdk("GET", "/v1/sdk/placements/main/flow?profile_id=\(profile)")
    return try answer.decode(PlacementFlowResponse.self).flow.id
  }

  @Test(
    "through the admin API: a configuration naming an unknown list is refused; with the list its rule targets; a replaced list retargets at once; a used list cannot be deleted"
  )
  func adminRoutes() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let refused = try await server.admin("PUT", "/v1/admin/config", json: Self.listConfig)
    #expect(refused.errorCode == "invalid_config")
    #expect(refused.errorPaths == ["$.audiences[0].rule.customer_user_id.$inGroup"])

    func put(_ body: String, type: String = "text/plain", id: String = "churned_q3") async throws -> HTTPResult {
      try await server.send(
        "PUT", "/v1/admin/lists/\(id)", key: server.adminKey, scheme: "Bearer", body: Data(body.utf8), contentType: type
      )
    }
    let created = try await put("user-1\nuser-2\nuser-2\n")
    #expect(created.status == 201)
    let payload = try #require(created.json?.objectValue)
    #expect(payload["size"] == .int(2) && payload["used_by"] == .array([]))
    #expect(payload["checksum"] == .string(Digest.sha256Hex("user-1\nuser-2")))
    #expect(try await server.admin("PUT", "/v1/admin/config", json: Self.listConfig).status == 200)

    let inList = try await server.createProfile()
    let outside = try await server.createProfile()
    #expect(
      try await server.sdk("PATCH", "/v1/sdk/profiles/\(inList)", json: #"{"customer_user_id":"user-2"}"#).status == 200
    )
    #expect(
      try await server.sdk("PATCH", "/v1/sdk/profiles/\(outside)", json: #"{"customer_user_id":"user-3"}"#).status
        == 200)
    #expect(try await flow(server, inList) == "winback")
    #expect(try await flow(server, outside) == "standard")

    // Replaced whole, as JSON this time: user-3 in, user-2 out, served at once.
    let replaced = try await put(#"["user-3", 42]"#, type: "application/json")
    #expect(replaced.status == 200 && replaced.json?.objectValue?["used_by"] == .array([.string("churned")]))
    #expect(try await flow(server, inList) == "standard")
    #expect(try await flow(server, outside) == "winback")

    let shown = try await server.admin("GET", "/v1/admin/lists/churned_q3")
    #expect(shown.status == 200 && shown.json?.objectValue?["size"] == .int(2))
    let all = try await server.admin("GET", "/v1/admin/lists")
    #expect(all.json?.objectValue?["lists"]?.arrayValue?.count == 1)

    let inUse = try await server.admin("DELETE", "/v1/admin/lists/churned_q3")
    #expect(inUse.status == 409 && inUse.errorCode == "list_in_use")
    #expect(
      try await server.admin(
        "PUT", "/v1/admin/config",
        json: Self.listConfig.replacingOccurrences(of: "$inGroup", with: "$in").replacingOccurrences(
          of: #""churned_q3""#, with: #"["user-9"]"#)
      ).status == 200)
    #expect(try await server.admin("DELETE", "/v1/admin/lists/churned_q3").status == 204)
    #expect(try await server.admin("GET", "/v1/admin/lists/churned_q3").errorCode == "list_not_found")
    #expect(try await server.admin("DELETE", "/v1/admin/lists/churned_q3").errorCode == "list_not_found")

    // Refusals: a bad id, a wrong media type, bad values, an SDK key, another app's list.
    #expect(try await put("a", id: "no%20spaces").errorCode == "bad_parameter")
    #expect(try await put("a", type: "application/xml").errorCode == "unsupported_media_type")
    #expect(try await put("[1.5]", type: "application/json").errorCode == "validation_failed")
    #expect(
      try await server.send(
        "PUT", "/v1/admin/lists/x", key: server.sdkKey, scheme: "Bearer", body: Data("a".utf8),
        contentType: "text/plain"
      ).status == 403)
    _ = try await put("only-alpha", id: "private")
    #expect(
      try await server.admin("GET", "/v1/admin/lists/private", key: server.beta.secretKey).errorCode == "list_not_found"
    )
    let audit = try await server.admin("GET", "/v1/admin/audit")
    let actions =
      audit.json?.objectValue?["entries"]?.arrayValue?.compactMap { $0.objectValue?["action"]?.stringValue } ?? []
    #expect(actions.filter { $0 == "list.put" }.count == 3 && actions.contains("list.deleted"))
  }

  @Test(
    "a 20 000-value body (740 KB) is streamed over HTTP in many chunks; a declared body over 64 MiB is answered 413 before it is sent"
  )
  func streamedOverHTTP() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let values = (0..<20_000).map { "00000000-0000-4000-8000-\(String(format: "%012d", $0))" }
    let body = Data((values.joined(separator: "\n") + "\n").utf8)
    #expect(body.count > 64 * 1024 * 10)
    let answer = try await server.send(
      "PUT", "/v1/admin/lists/big", key: server.adminKey, scheme: "Bearer", body: body, contentType: "text/plain")
    #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
    #expect(answer.json?.objectValue?["size"] == .int(20_000))
    #expect(answer.json?.objectValue?["checksum"] == .string(Digest.sha256Hex(values.joined(separator: "\n"))))

    let connection = try RawConnection(port: server.port)
    defer { connection.close() }
    connection.send(
      "PUT /v1/admin/lists/big HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.adminKey)\r\n"
        + "Content-Type: text/plain\r\nContent-Length: \(SavedListUpload.maximumBytes + 1)\r\n\r\n")
    #expect(connection.readHead().hasPrefix("HTTP/1.1 413"))
  }

  @Test("tollgate lists put reads a file as the API reads a body, and the configuration may then name it")
  func commandLineFile() throws {
    let json = try SavedListService.values(inFile: Data(" [\"b\", 7, \"a\"]".utf8))
    #expect(json.values == ["7", "a", "b"])
    let text = try SavedListService.values(inFile: Data("b\r\na\n".utf8))
    #expect(text.values == ["a", "b"])
    #expect(throws: DomainError.self) { try SavedListService.values(inFile: Data("[\"a\"".utf8)) }
  }
}

/// Saved lists on each engine: stored whole, replaced, counted as changes, per app.
@Suite("Saved lists in the store")
struct SavedListStoreTests {
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  @Test("put, read back, replace, delete; each change counts for its app only", arguments: StoreFactory.available)
  func storeRoundTrip(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let one = try store.createApp(name: "one")
    let two = try store.createApp(name: "two")
    #expect(try store.listRevisions()[one.id] == 0)
    let values = try SavedListValues.make(["u3", "u1", "u2"]) { "$[\($0)]" }.get()
    #expect(try store.putSavedList(appId: one.id, id: "churned", values: values, at: now))
    #expect(try store.listRevisions()[one.id] == 1 && store.listRevisions()[two.id] == 0)
    let info = try #require(try store.savedListInfo(appId: one.id, id: "churned"))
    #expect(info == SavedListInfo(id: "churned", size: 3, checksum: values.checksum, updatedAt: now))
    #expect(try store.savedListInfo(appId: two.id, id: "churned") == nil)
    let read = try store.savedListValues(appId: one.id, ids: ["churned", "absent"])
    #expect(read.count == 1 && read["churned"]?.values == values)

    let replacement = try SavedListValues.make(["u9"]) { "$[\($0)]" }.get()
    #expect(
      !(try store.putSavedList(appId: one.id, id: "churned", values: replacement, at: now.addingTimeInterval(60))))
    #expect(try store.savedListInfos(appId: one.id).map(\.size) == [1])
    #expect(try store.savedListValues(appId: one.id, ids: ["churned"])["churned"]?.values.values == ["u9"])
    let empty = try SavedListValues.make([]) { "$[\($0)]" }.get()
    #expect(try store.putSavedList(appId: one.id, id: "empty", values: empty, at: now))
    #expect(try store.savedListValues(appId: one.id, ids: ["empty"])["empty"]?.values.values == [])
    #expect(try store.deleteSavedList(appId: one.id, id: "churned"))
    #expect(!(try store.deleteSavedList(appId: one.id, id: "churned")))
    #expect(try store.listRevisions()[one.id] == 4)
    #expect(try store.savedListInfos(appId: one.id).map(\.id) == ["empty"])
  }
}

/// A store where another request deletes a list the moment after it is put (two admin calls on
/// one list at once).
private struct DeletedRightAfterPut: SavedListRepository {
  let store: any Database

  func putSavedList(appId: Int64, id: String, values: SavedListValues, at: Date) throws -> Bool {
    let created = try store.putSavedList(appId: appId, id: id, values: values, at: at)
    _ = try store.deleteSavedList(appId: appId, id: id)
    return created
  }
  func savedListInfo(appId: Int64, id: String) throws -> SavedListInfo? {
    try store.savedListInfo(appId: appId, id: id)
  }
  func savedListInfos(appId: Int64) throws -> [SavedListInfo] { try store.savedListInfos(appId: appId) }
  func savedListValues(appId: Int64, ids: [String]) throws -> [String: (
    info: SavedListInfo, values: SavedListValues
  )] { try store.savedListValues(appId: appId, ids: ids) }
  func deleteSavedList(appId: Int64, id: String) throws -> Bool { try store.deleteSavedList(appId: appId, id: id) }
  func listRevisions() throws -> [Int64: Int64] { try store.listRevisions() }
}

@Suite("Saved lists, two requests at once")
struct SavedListRaceTests {
  @Test("a PUT answers the list it stored, even when another request deletes it at once (not 404)")
  func putThenDeleted() throws {
    let store = try StoreFactory.sqlite.make()
    defer { store.close() }
    let app = try store.createApp(name: "one")
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let service = SavedListService(
      apps: store, documents: store, savedLists: DeletedRightAfterPut(store: store), time: ManualTime(now))
    let values = try SavedListValues.make(["u2", "u1"]) { "$[\($0)]" }.get()
    let (info, created) = try service.put(appId: app.id, id: "churned", values: values, by: "test")
    #expect(created)
    #expect(info == SavedListInfo(id: "churned", size: 2, checksum: values.checksum, updatedAt: now))
  }
}
