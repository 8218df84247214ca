import CSodium
import Foundation

/// People's passwords, hashed with Argon2id (libsodium's `crypto_pwhash_str`): memory-hard, so
/// a stolen table costs an attacker memory per guess, not just time. The stored text carries
/// its own parameters, so hashes made at another cost still verify, and `needsRehash` says
/// when one should be made again at today's cost.
public struct PasswordHasher: Sendable {
  /// Passes over memory (Argon2's t).
  public let operations: Int
  /// Memory per hash, in bytes (Argon2's m).
  public let memoryBytes: Int

  /// OWASP's recommended Argon2id cost: 19 MiB, 2 passes, 1 lane (libsodium always uses 1).
  public static let recommended = PasswordHasher(operations: 2, memoryBytes: 19 * 1024 * 1024)
  /// The least libsodium accepts: for tests only, where a hash must not take 50 ms.
  public static let fastForTests = PasswordHasher(operations: 1, memoryBytes: 8 * 1024)

  /// A hasher at this cost.
  public init(operations: Int, memoryBytes: Int) {
    Self.ready
    self.operations = operations
    self.memoryBytes = memoryBytes
  }

  /// `sodium_init` once per process (it is idempotent, but not free).
  private static let ready: Void = { _ = sodium_init() }()

  /// The encoded hash (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`) of `password`, with a new
  /// random salt. Throws only when the system cannot give the memory.
  public func hash(_ password: String) throws -> String {
    var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
    // The C string's terminator keeps the buffer non-empty; the length says where it ends.
    let chars = password.utf8CString
    let status = chars.withUnsafeBufferPointer { input in
      crypto_pwhash_str_alg(
        &out, input.baseAddress!, UInt64(input.count - 1), UInt64(operations), memoryBytes,
        crypto_pwhash_ALG_ARGON2ID13)
    }
    guard status == 0 else { throw PasswordHasherError("Argon2id could not get \(memoryBytes) bytes of memory") }
    return String(decoding: out.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether `password` is the one hashed in `encoded`. A malformed hash is never a match.
  public func verify(_ password: String, against encoded: String) -> Bool {
    let chars = password.utf8CString
    return encoded.withCString { stored in
      chars.withUnsafeBufferPointer { input in
        crypto_pwhash_str_verify(stored, input.baseAddress!, UInt64(input.count - 1)) == 0
      }
    }
  }

  /// Whether `encoded` was made at another cost than this hasher's (hash again after a
  /// successful sign-in).
  public func needsRehash(_ encoded: String) -> Bool {
    encoded.withCString { crypto_pwhash_str_needs_rehash($0, UInt64(operations), memoryBytes) != 0 }
  }
}

/// Hashing failed for want of memory.
public struct PasswordHasherError: Error, CustomStringConvertible {
  /// What went wrong.
  public let description: String
  init(_ description: String) { self.description = description }
}
