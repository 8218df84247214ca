import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

@Suite("Profiles")
struct ProfileTests {
  @Test("creating a profile is idempotent: 201 once, then 200 with the same profile")
  func createIdempotent() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let id = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
    let body = #"""
      {"profile_id":"\#(id)","customer_user_id":"user-1","unknown_field":[1,2],
       "install":{"app_version":"2.4.1","os_version":"17.5","device_model":"iPhone15,2",
                  "locale":"fr-FR","store_country":"FRA","sdk_version":"3.4.0","future":true}}
      """#
    let first = try await server.sdk("POST", "/v1/sdk/profiles", json: body)
    #expect(first.status == 201)
    let created = try first.decode(ProfilePayload.self)
    #expect(created.id == id.lowercased())
    #expect(created.version == 1)
    #expect(created.customerUserId == "user-1")
    #expect(
      created.install
        == InstallMeta(
          appVersion: "2.4.1", osVersion: "17.5", deviceModel: "iPhone15,2", locale: "fr-FR", storeCountry: "FRA",
          sdkVersion: "3.4.0"))
    #expect(created.appliedAttributionSources == [])

    let second = try await server.sdk(
      "POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(id.lowercased())","customer_user_id":"other"}"#)
    #expect(second.status == 200)
    #expect(try second.decode(ProfilePayload.self) == created)
  }

  @Test("profile ids must be UUIDs (422 naming the field)")
  func invalidId() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let result = try await server.sdk("POST", "/v1/sdk/profiles", json: #"{"profile_id":"not-a-uuid"}"#)
    #expect(result.status == 422)
    #expect(result.errorPaths == ["$.profile_id"])
    let missing = try await server.sdk("POST", "/v1/sdk/profiles", json: #"{"install":{}}"#)
    #expect(missing.status == 400)
    #expect(missing.errorCode == "malformed_json")
  }

  @Test(
    "an empty customer user id, or one holding a NUL, is refused on creation and update (422), and nothing changes",
    arguments: ["", #"\u0000"#, #"user\u0000"#])
  func emptyCustomerUserId(customerUserId: String) async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let id = UUID().uuidString.lowercased()
    // A NUL was stored cut short (`"\u0000"` read back as ""): the stores take text up to it.
    let created = try await server.sdk(
      "POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(id)","customer_user_id":"\#(customerUserId)"}"#)
    #expect(created.status == 422)
    #expect(created.errorPaths == ["$.customer_user_id"])
    #expect(try await server.sdk("GET", "/v1/sdk/profiles/\(id)").status == 404)

    let existing = try await server.createProfile()
    let patched = try await server.sdk(
      "PATCH", "/v1/sdk/profiles/\(existing)", json: #"{"customer_user_id":"\#(customerUserId)"}"#)
    #expect(patched.status == 422)
    #expect(patched.errorPaths == ["$.customer_user_id"])
    let read = try await server.sdk("GET", "/v1/sdk/profiles/\(existing)").decode(ProfilePayload.self)
    #expect(read.customerUserId == nil)
    #expect(read.version == 1)
  }

  @Test("GET answers 304 for a matching If-None-Match and a new ETag after a change")
  func etags() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    let first = try await server.sdk("GET", "/v1/sdk/profiles/\(id)")
    #expect(first.status == 200)
    let etag = try #require(first.header("ETag"))
    let cached = try await server.send(
      "GET", "/v1/sdk/profiles/\(id)", key: server.sdkKey, headers: ["If-None-Match": etag])
    #expect(cached.status == 304)
    #expect(cached.body.isEmpty)
    _ = try await server.sdk("PATCH", "/v1/sdk/profiles/\(id)", json: #"{"custom_attributes":{"level":3}}"#)
    let changed = try await server.send(
      "GET", "/v1/sdk/profiles/\(id)", key: server.sdkKey, headers: ["If-None-Match": etag])
    #expect(changed.status == 200)
    #expect(changed.header("ETag") != etag)
    #expect(try changed.decode(ProfilePayload.self).version == 2)
  }

  @Test("unknown profiles are 404 profile_not_found")
  func unknownProfile() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    for id in [UUID().uuidString, "nonsense"] {
      let result = try await server.sdk("GET", "/v1/sdk/profiles/\(id)")
      #expect(result.status == 404)
      #expect(result.errorCode == "profile_not_found")
    }
  }

  @Test("PATCH sets and removes custom attributes and bumps the version only on change")
  func patchAttributes() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    let set = try await server.sdk(
      "PATCH", "/v1/sdk/profiles/\(id)",
      json: #"{"custom_attributes":{"level":3,"plan":"gold","ratio":0.5},"install":{"app_version":"3.0"}}"#)
    #expect(set.status == 200)
    let afterSet = try set.decode(ProfilePayload.self)
    #expect(afterSet.customAttributes == ["level": .int(3), "plan": .string("gold"), "ratio": .double(0.5)])
    #expect(afterSet.install.appVersion == "3.0")
    #expect(afterSet.version == 2)

    let removed = try await server.sdk(
      "PATCH", "/v1/sdk/profiles/\(id)", json: #"{"custom_attributes":{"plan":null}}"#)
    #expect(try removed.decode(ProfilePayload.self).customAttributes == ["level": .int(3), "ratio": .double(0.5)])
    #expect(try removed.decode(ProfilePayload.self).version == 3)

    let unchanged = try await server.sdk(
      "PATCH", "/v1/sdk/profiles/\(id)", json: #"{"custom_attributes":{"level":3}}"#)
    #expect(try unchanged.decode(ProfilePayload.self).version == 3)
  }

  @Test("attribute limits give 422 with every offending path, and nothing is applied")
  func attributeLimits() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    let long = String(repeating: "x", count: 51)
    let bad = try await server.sdk(
      "PATCH", "/v1/sdk/profiles/\(id)",
      json:
        #"{"custom_attributes":{"ok":1,"bad key":1,"long":"\#(long)","list":[1],"flag":true,"\#(String(repeating: "k", count: 31))":1}}"#
    )
    #expect(bad.status == 422)
    #expect(
      Set(bad.errorPaths)
        == Set([
          "$.custom_attributes.bad key", "$.custom_attributes.long", "$.custom_attributes.list",
          "$.custom_attributes.flag", "$.custom_attributes.\(String(repeating: "k", count: 31))",
        ]))
    let profile = try await server.sdk("GET", "/v1/sdk/profiles/\(id)")
    #expect(try profile.decode(ProfilePayload.self).customAttributes.isEmpty)

    let thirty = (1...30).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
    #expect(
      try await server.sdk("PATCH", "/v1/sdk/profiles/\(id)", json: #"{"custom_attributes":{\#(thirty)}}"#).status
        == 200)
    let tooMany = try await server.sdk("PATCH", "/v1/sdk/profiles/\(id)", json: #"{"custom_attributes":{"k31":31}}"#)
    #expect(tooMany.status == 422)
    #expect(tooMany.errorPaths == ["$.custom_attributes"])
    let exactly = String(repeating: "é", count: 50)
    #expect(
      try await server.sdk("PATCH", "/v1/sdk/profiles/\(id)", json: #"{"custom_attributes":{"k1":"\#(exactly)"}}"#)
        .status == 200)
  }

  @Test("SQL metacharacters are stored verbatim")
  func sqlMetacharacters() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let nasty = #"x'); DROP TABLE profiles; --\"%_"#
    let id = UUID().uuidString.lowercased()
    let body = WireCoding.encode(CreateProfileRequest(profileId: id, customerUserId: nasty))
    let created = try await server.send("POST", "/v1/sdk/profiles", key: server.sdkKey, body: body)
    #expect(created.status == 201)
    let read = try await server.sdk("GET", "/v1/sdk/profiles/\(id)")
    #expect(try read.decode(ProfilePayload.self).customerUserId == nasty)
    #expect(try await server.sdk("GET", "/v1/sdk/profiles/\(id)").status == 200)
  }

  @Test("concurrent creation of one id yields one profile")
  func concurrentCreate() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let id = UUID().uuidString.lowercased()
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<8 {
        group.addTask {
          try await server.sdk(
            "POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(id)","customer_user_id":"c\#(index)"}"#
          ).status
        }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(statuses.filter { $0 == 201 }.count == 1)
    #expect(statuses.filter { $0 == 200 }.count == 7)
  }
}
