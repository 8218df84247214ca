import COpenSSL
import Foundation

/// Seals secrets the server must read back (webhook signing secrets: HMAC needs the secret
/// itself, so it cannot be stored as a hash) with AES-256-GCM under a key kept outside the
/// database (`--secrets-key`, `TOLLGATE_SECRETS_KEY`, or a 0600 file beside the SQLite file).
public struct SecretBox: Sendable {
  let key: [UInt8]

  /// A box over a 32-byte key.
  public init(key: [UInt8]) throws {
    guard key.count == 32 else { throw SecretBoxError("a secrets key is 32 bytes, not \(key.count)") }
    self.key = key
  }

  /// The key in `text`: 64 hex digits or base64 of 32 bytes.
  public static func parse(_ text: String) -> [UInt8]? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.count == 64, trimmed.allSatisfy(\.isHexDigit) {
      var bytes: [UInt8] = []
      var index = trimmed.startIndex
      while index < trimmed.endIndex {
        let next = trimmed.index(index, offsetBy: 2)
        bytes.append(UInt8(trimmed[index..<next], radix: 16)!)
        index = next
      }
      return bytes
    }
    return Data(base64Encoded: trimmed).map { [UInt8]($0) }.flatMap { $0.count == 32 ? $0 : nil }
  }

  /// The key from `option` (a value or a file holding one), else the file at `defaultFile`,
  /// created with a new random key (mode 0600) on first use.
  public static func load(option: String?, defaultFile: URL) throws -> SecretBox {
    if let option {
      if let key = parse(option) { return try SecretBox(key: key) }
      guard let text = try? String(contentsOfFile: option, encoding: .utf8), let key = parse(text) else {
        throw SecretBoxError("the secrets key is neither 32 bytes (hex or base64) nor a file holding them")
      }
      return try SecretBox(key: key)
    }
    if let text = try? String(contentsOf: defaultFile, encoding: .utf8), let key = parse(text) {
      return try SecretBox(key: key)
    }
    let key = Digest.randomBytes(32)
    try FileManager.default.createDirectory(
      at: defaultFile.deletingLastPathComponent(), withIntermediateDirectories: true)
    guard
      FileManager.default.createFile(
        atPath: defaultFile.path, contents: Data(Digest.hex(key).utf8), attributes: [.posixPermissions: 0o600])
    else { throw SecretBoxError("cannot write the secrets key file \(defaultFile.path)") }
    return try SecretBox(key: key)
  }

  /// `nonce || ciphertext || tag`, base64.
  public func seal(_ plaintext: String) throws -> String {
    let nonce = Digest.randomBytes(12)
    let input = [UInt8](plaintext.utf8)
    var output = [UInt8](repeating: 0, count: input.count + 16)
    var tag = [UInt8](repeating: 0, count: 16)
    guard let context = EVP_CIPHER_CTX_new() else { throw SecretBoxError("EVP_CIPHER_CTX_new failed") }
    defer { EVP_CIPHER_CTX_free(context) }
    var length: Int32 = 0
    var total: Int32 = 0
    guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1,
      EVP_EncryptUpdate(context, &output, &length, input, Int32(input.count)) == 1
    else { throw SecretBoxError("AES-GCM encryption failed") }
    total = length
    let finished = output.withUnsafeMutableBufferPointer { buffer in
      EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(total), &length)
    }
    guard finished == 1, EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1 else {
      throw SecretBoxError("AES-GCM encryption failed")
    }
    total += length
    return Data(nonce + output[..<Int(total)] + tag).base64EncodedString()
  }

  /// The plaintext; throws when the key is wrong or the sealed text was altered.
  public func open(_ sealed: String) throws -> String {
    guard let data = Data(base64Encoded: sealed), data.count >= 28 else {
      throw SecretBoxError("a sealed secret is damaged")
    }
    let bytes = [UInt8](data)
    let nonce = Array(bytes[0..<12])
    var tag = Array(bytes[(bytes.count - 16)...])
    let input = Array(bytes[12..<(bytes.count - 16)])
    var output = [UInt8](repeating: 0, count: input.count + 16)
    guard let context = EVP_CIPHER_CTX_new() else { throw SecretBoxError("EVP_CIPHER_CTX_new failed") }
    defer { EVP_CIPHER_CTX_free(context) }
    var length: Int32 = 0
    guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1,
      EVP_DecryptUpdate(context, &output, &length, input, Int32(input.count)) == 1,
      EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1
    else { throw SecretBoxError("AES-GCM decryption failed") }
    let total = length
    let finished = output.withUnsafeMutableBufferPointer { buffer in
      EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(total), &length)
    }
    guard finished == 1 else {
      throw SecretBoxError("a sealed secret does not open with this secrets key (was the key changed?)")
    }
    return String(decoding: output[..<Int(total + length)], as: UTF8.self)
  }
}

extension Digest {
  /// HMAC-SHA256 of `message` under `key`, lower-case hex.
  public static func hmacSHA256Hex(key: String, message: Data) -> String {
    var out = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let keyBytes = [UInt8](key.utf8)
    message.withUnsafeBytes { raw in
      _ = HMAC(
        EVP_sha256(), keyBytes, Int32(keyBytes.count), raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &out,
        &length)
    }
    return hex(Array(out[..<Int(length)]))
  }
}

/// Why a secret could not be sealed or opened, or the secrets key read.
public struct SecretBoxError: Error, CustomStringConvertible, Sendable {
  public let description: String
  init(_ description: String) { self.description = description }
}
