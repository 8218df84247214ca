import Foundation
import Testing

@testable import TollgateSupport

@Suite("Argon2id password hashes")
struct PasswordHasherTests {
  @Test("the recommended cost is OWASP's (19 MiB, 2 passes, 1 lane); hashes verify, others do not")
  func recommended() throws {
    let hasher = PasswordHasher.recommended
    let hash = try hasher.hash("correct horse battery")
    #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
    #expect(hasher.verify("correct horse battery", against: hash))
    #expect(!hasher.verify("correct horse batterY", against: hash))
    #expect(!hasher.needsRehash(hash))
    // The same password twice: different salts.
    #expect(try hasher.hash("correct horse battery") != hash)
  }

  @Test("a hash at another cost still verifies and asks to be made again; malformed hashes never match")
  func otherCost() throws {
    let cheap = try PasswordHasher.fastForTests.hash("pässwörd with ünïcode")
    #expect(PasswordHasher.recommended.verify("pässwörd with ünïcode", against: cheap))
    #expect(PasswordHasher.recommended.needsRehash(cheap))
    #expect(!PasswordHasher.recommended.verify("", against: "not a hash"))
    #expect(!PasswordHasher.recommended.verify("x", against: ""))
    // A NUL inside the password counts: it is not where the password ends.
    let withNul = try PasswordHasher.fastForTests.hash("abc\u{0}def")
    #expect(!PasswordHasher.fastForTests.verify("abc", against: withNul))
    #expect(PasswordHasher.fastForTests.verify("abc\u{0}def", against: withNul))
  }
}
