import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

@Suite("Keys and app isolation")
struct AuthTests {
  @Test("keys are stored only as SHA-256 hashes")
  func keysHashed() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let stored = try server.server.store.database.key(hash: Digest.sha256Hex(server.alpha.publicKey))
    #expect(stored?.appId == server.alpha.app.id)
    #expect(stored?.kind == .publicKey)
    #expect(stored?.id == KeyRecord.id(hash: Digest.sha256Hex(server.alpha.publicKey)))
    #expect(try server.server.store.database.key(hash: server.alpha.publicKey) == nil)
    let file = try Data(contentsOf: URL(fileURLWithPath: server.databasePath))
    let wal = (try? Data(contentsOf: URL(fileURLWithPath: server.databasePath + "-wal"))) ?? Data()
    for key in [server.alpha.publicKey, server.alpha.secretKey] {
      #expect(file.range(of: Data(key.utf8)) == nil && wal.range(of: Data(key.utf8)) == nil)
    }
  }

  @Test("missing, malformed or unknown keys get 401")
  func unauthenticated() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let missing = try await server.send("GET", "/v1/sdk/fallback")
    #expect(missing.status == 401)
    #expect(missing.errorCode == "missing_credentials")
    let unknown = try await server.sdk("GET", "/v1/sdk/fallback", key: "tg_pub_nope")
    #expect(unknown.status == 401)
    #expect(unknown.errorCode == "invalid_credentials")
    let scheme = try await server.send("GET", "/v1/sdk/fallback", key: server.sdkKey, scheme: "Basic")
    #expect(scheme.status == 401)
    let adminMissing = try await server.send("GET", "/v1/admin/config")
    #expect(adminMissing.status == 401)
  }

  @Test("the Authorization header: either scheme in any case, blanks around the key ignored, anything else refused")
  func authorizationHeader() {
    #expect(Authenticator.credential(in: "Api-Key tg_pub_abc") == "tg_pub_abc")
    #expect(Authenticator.credential(in: "api-KEY \t tg_pub_abc \t") == "tg_pub_abc")
    #expect(Authenticator.credential(in: "BEARER tg_sec_abc") == "tg_sec_abc")
    #expect(Authenticator.credential(in: " Bearer tg_sec_abc") == "tg_sec_abc")
    #expect(Authenticator.credential(in: "Bearer tg_sec_abc extra") == "tg_sec_abc extra")
    for refused in ["", "Bearer", "Bearer   ", "Basic dXNlcg==", "Api-Keys k", "Api\rKey k", "ApiMkey k", "tg_pub_abc"]
    {
      #expect(Authenticator.credential(in: refused) == nil, "\(refused)")
    }
  }

  @Test("a public key never opens an admin route (403), a secret key is refused on SDK routes")
  func wrongKind() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    for scheme in ["Bearer", "Api-Key"] {
      let result = try await server.send("GET", "/v1/admin/config", key: server.sdkKey, scheme: scheme)
      #expect(result.status == 403)
      #expect(result.errorCode == "forbidden")
    }
    let put = try await server.send(
      "PUT", "/v1/admin/config", key: server.sdkKey, scheme: "Bearer", body: Data("{}".utf8))
    #expect(put.status == 403)
    let secretOnSDK = try await server.send("GET", "/v1/sdk/fallback", key: server.adminKey, scheme: "Api-Key")
    #expect(secretOnSDK.status == 403)
  }

  @Test("one app can neither read nor change another app's data")
  func isolation() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let profile = try await server.createProfile()

    let betaSDK = server.beta.publicKey
    let betaAdmin = server.beta.secretKey
    #expect(try await server.sdk("GET", "/v1/sdk/profiles/\(profile)", key: betaSDK).status == 404)
    #expect(
      try await server.sdk(
        "PATCH", "/v1/sdk/profiles/\(profile)", json: #"{"custom_attributes":{"x":1}}"#, key: betaSDK
      ).status == 404)
    #expect(try await server.admin("GET", "/v1/admin/profiles/\(profile)", key: betaAdmin).status == 404)
    #expect(try await server.admin("GET", "/v1/admin/config", key: betaAdmin).status == 404)
    #expect(try await server.sdk("GET", "/v1/sdk/placements/onboarding/default", key: betaSDK).status == 404)
    #expect(try await server.sdk("GET", "/v1/sdk/fallback", key: betaSDK).status == 404)

    // Beta's own config does not touch alpha's.
    let betaConfig = #"{"flows":[{"id":"b"}],"placements":[{"id":"onboarding","default":"b"}]}"#
    #expect(try await server.admin("PUT", "/v1/admin/config", json: betaConfig, key: betaAdmin).status == 200)
    let alphaConfig = try await server.admin("GET", "/v1/admin/config")
    #expect(alphaConfig.json?.objectValue?["revision"] == .int(1))
    let alphaFlow = try await server.sdk("GET", "/v1/sdk/placements/onboarding/default")
    #expect(try alphaFlow.decode(PlacementFlowResponse.self).flow.id == "standard")

    // Profile ids are per app: the same id in beta is a different profile.
    let same = try await server.sdk(
      "POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(profile)","customer_user_id":"beta-user"}"#, key: betaSDK)
    #expect(same.status == 201)
    let alphaProfile = try await server.sdk("GET", "/v1/sdk/profiles/\(profile)")
    #expect(try alphaProfile.decode(ProfilePayload.self).customerUserId == nil)
  }
}
