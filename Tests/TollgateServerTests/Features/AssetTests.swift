import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Images for paywall documents: uploaded as bytes, told apart by their bytes, stored once by
/// SHA-256, served immutable.
@Suite("Assets")
struct AssetTests {
  /// A real PNG from the repository (1280 × 1570, 144 KiB: over the 64 KiB of other routes).
  static func png() throws -> Data {
    try Data(contentsOf: repositoryRoot.appendingPathComponent("docs/screenshots/console-overview.png"))
  }

  @Test("an image is stored once by SHA-256 and served with immutable caching and revalidation")
  func uploadAndServe() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let image = try Self.png()
    let first = try await server.send(
      "POST", "/v1/admin/assets", key: server.adminKey, scheme: "Bearer", body: image, contentType: "image/png")
    #expect(first.status == 201)
    let payload = try first.decode(AssetPayload.self)
    let hash = Digest.hex(Digest.sha256(image))
    #expect(
      payload.sha256 == hash && payload.mediaType == "image/png" && payload.width == 1280 && payload.height == 1570)
    #expect(payload.size == image.count && payload.url == "/v1/assets/\(hash)")
    // The declared type does not matter; the same bytes are the same asset.
    let again = try await server.send(
      "POST", "/v1/admin/assets", key: server.adminKey, scheme: "Bearer", body: image,
      contentType: "application/octet-stream")
    let repeated = try again.decode(AssetPayload.self)
    #expect(again.status == 200 && repeated == payload)
    let served = try await server.send("GET", "/v1/assets/\(hash)", key: nil)
    #expect(served.status == 200 && served.body == image && served.header("Content-Type") == "image/png")
    #expect(served.header("Cache-Control") == "public, max-age=31536000, immutable")
    #expect(served.header("ETag") == "\"\(hash)\"")
    let revalidated = try await server.send(
      "GET", "/v1/assets/\(hash)", key: nil, headers: ["If-None-Match": "\"\(hash)\""])
    #expect(revalidated.status == 304 && revalidated.body.isEmpty)
    #expect(
      try await server.send("GET", "/v1/assets/\(String(repeating: "0", count: 64))", key: nil).errorCode
        == "asset_not_found")
    #expect(try await server.send("GET", "/v1/assets/not-a-hash", key: nil).errorCode == "asset_not_found")
  }

  @Test(
    "refused: not an image, an unreadable header or too many pixels (422), over 2 MiB (413), an SDK key (403)")
  func refusals() async throws {
    let server = try TestServer()
    defer { server.stop() }
    func upload(_ data: Data, key: String? = nil) async throws -> HTTPResult {
      try await server.send(
        "POST", "/v1/admin/assets", key: key ?? server.adminKey, scheme: "Bearer", body: data, contentType: "image/png")
    }
    #expect(
      try await upload(Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)).errorCode == "invalid_asset")
    // Declared over 2 MiB: answered 413 before the body is sent. (A client that sends the body
    // anyway, as curl does when the server has not answered within its 1 s `Expect` wait on a
    // loaded machine, may see the connection close before it reads the answer.)
    let connection = try RawConnection(port: server.port)
    defer { connection.close() }
    connection.send(
      "POST /v1/admin/assets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.adminKey)\r\n"
        + "Content-Type: image/png\r\nContent-Length: \(ImageAsset.maximumBytes + 1)\r\n\r\n")
    let answer = connection.readHead()
    #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
    var broken = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    broken.append(Data(repeating: 7, count: 40))
    #expect(try await upload(broken).errorCode == "invalid_asset")
    #expect(try await upload(Self.pngHeader(width: 5_000, height: 100)).errorCode == "invalid_asset")
    #expect(try await upload(Data()).errorCode == "invalid_asset")
    #expect(try await upload(try Self.png(), key: server.sdkKey).status == 403)
    // Other routes keep their 64 KiB.
    let big = try await server.send(
      "PUT", "/v1/admin/config", key: server.adminKey, scheme: "Bearer", body: Data(count: 70 * 1024))
    #expect(big.status == 413)
  }

  /// The first bytes of a PNG of that size (signature and IHDR).
  static func pngHeader(width: Int, height: Int) -> Data {
    var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    for value in [width, height] { bytes += [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
    bytes += [8, 6, 0, 0, 0, 0, 0, 0, 0]
    return Data(bytes)
  }

  @Test("sizes read from JPEG, WebP (lossy, lossless, extended) and PNG headers")
  func headers() throws {
    // JPEG: SOI, an APP0 segment, then a progressive start of frame (C2) for 480 × 640.
    let jpeg: [UInt8] =
      [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
      + [
        0xFF, 0xC2, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11,
        0x01,
      ]
    #expect(try ImageAsset.inspect(Data(jpeg)) == ImageAsset(mediaType: "image/jpeg", width: 640, height: 480))
    func webp(_ chunk: String, _ payload: [UInt8]) -> Data {
      Data(Array("RIFF".utf8) + [0x40, 0, 0, 0] + Array("WEBP".utf8) + Array(chunk.utf8) + [0x20, 0, 0, 0] + payload)
    }
    // VP8X: canvas width − 1 and height − 1 in 24 bits each.
    let extended = webp(
      "VP8X", [0, 0, 0, 0] + [0x1F, 0x03, 0x00] + [0x57, 0x02, 0x00] + Array(repeating: 0, count: 8))
    #expect(try ImageAsset.inspect(extended) == ImageAsset(mediaType: "image/webp", width: 800, height: 600))
    // VP8L: signature 0x2F, then 14 bits of width − 1 and 14 of height − 1.
    let bits = (300 - 1) | ((200 - 1) << 14)
    let bytes: [UInt8] = (0..<4).map { (shift: Int) -> UInt8 in UInt8((bits >> (shift * 8)) & 0xFF) }
    let lossless = webp("VP8L", [0x2F] + bytes + Array(repeating: 0, count: 8))
    #expect(try ImageAsset.inspect(lossless) == ImageAsset(mediaType: "image/webp", width: 300, height: 200))
    // VP8: a frame tag, the start code 9D 01 2A, then 14-bit width and height.
    let lossy = webp("VP8 ", [0, 0, 0, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00] + Array(repeating: 0, count: 8))
    #expect(try ImageAsset.inspect(lossy) == ImageAsset(mediaType: "image/webp", width: 320, height: 240))
    #expect(try ImageAsset.inspect(Self.pngHeader(width: 390, height: 844)).width == 390)
  }
}
