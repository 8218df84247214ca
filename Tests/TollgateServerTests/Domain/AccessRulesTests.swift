import Foundation
import Testing

@testable import TollgateDomain
@testable import TollgateSupport

@Suite("People's rules: passwords, throttling, sessions, roles")
struct AccessRulesTests {
  let policy = PasswordPolicy(common: ["password", "iloveyou", "qwertyuiop123", "Monkey"])

  @Test("a password is refused when short, common, a common one with digits added, the e-mail, or one character")
  func passwords() {
    let email = "ana.lopez@example.com"
    #expect(policy.problem(with: "short-1", email: email)?.contains("at least 12") == true)
    #expect(policy.problem(with: "QWERTYUIOP123", email: email)?.contains("common passwords") == true)
    #expect(policy.problem(with: "password2024!", email: email)?.contains("digits or symbols added") == true)
    #expect(policy.problem(with: "ILoveYou!!!!!!", email: email)?.contains("digits or symbols added") == true)
    #expect(policy.problem(with: "monkey12345678", email: email)?.contains("digits or symbols added") == true)
    #expect(policy.problem(with: "Ana.Lopez-2024x", email: email)?.contains("e-mail") == true)
    #expect(policy.problem(with: "aaaaaaaaaaaaaaaa", email: email)?.contains("different characters") == true)
    #expect(policy.problem(with: String(repeating: "é", count: 600), email: email)?.contains("1024") == true)
    #expect(policy.problem(with: "correct horse battery", email: email) == nil)
    #expect(policy.problem(with: "password-staple-9", email: email) == nil)
  }

  @Test("failed sign-ins: free at first, then waits doubling to a minute, then a lock; success clears")
  func throttle() {
    let throttle = SignInThrottle()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    #expect((0...3).map(throttle.delay(after:)) == [0, 0, 0, 0])
    #expect((4...11).map(throttle.delay(after:)) == [1, 2, 4, 8, 16, 32, 60, 60])
    var record = SignInThrottle.Record(failures: 0, lastFailure: nil, lockedUntil: nil)
    for _ in 0..<3 { record = throttle.failed(record, now: start, locks: true) }
    #expect(throttle.nextTry(record, now: start) == nil)
    record = throttle.failed(record, now: start, locks: true)
    #expect(throttle.nextTry(record, now: start) == start.addingTimeInterval(1))
    #expect(throttle.nextTry(record, now: start.addingTimeInterval(1)) == nil)
    var now = start
    while record.failures < 19 {
      now = now.addingTimeInterval(61)
      record = throttle.failed(record, now: now, locks: true)
    }
    #expect(record.lockedUntil == nil)
    record = throttle.failed(record, now: now, locks: true)
    #expect(record.lockedUntil == now.addingTimeInterval(15 * 60))
    #expect(throttle.nextTry(record, now: now.addingTimeInterval(14 * 60)) == now.addingTimeInterval(15 * 60))
    // Addresses are slowed down but never locked.
    let address = throttle.failed(
      SignInThrottle.Record(failures: 40, lastFailure: nil, lockedUntil: nil), now: now, locks: false)
    #expect(address.lockedUntil == nil)
    #expect(throttle.nextTry(address, now: now) == now.addingTimeInterval(60))
  }

  @Test("a session ends after 12 idle hours and 7 days whatever happens")
  func sessions() {
    let policy = SessionPolicy()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    #expect(policy.isOpen(created: start, lastSeen: start, now: start.addingTimeInterval(11 * 3_600)))
    #expect(!policy.isOpen(created: start, lastSeen: start, now: start.addingTimeInterval(12 * 3_600)))
    let late = start.addingTimeInterval(7 * 86_400 - 60)
    #expect(policy.isOpen(created: start, lastSeen: late, now: late.addingTimeInterval(30)))
    #expect(!policy.isOpen(created: start, lastSeen: late, now: late.addingTimeInterval(60)))
  }

  @Test("roles: owner all, admin all but people, the rest what the table in docs/access.md says")
  func roles() {
    #expect(Role.owner.permissions == Set(Permission.allCases))
    #expect(Role.admin.permissions == Set(Permission.allCases).subtracting([.peopleWrite]))
    #expect(Role.editor.allows(.configWrite) && !Role.editor.allows(.keysWrite) && !Role.editor.allows(.webhooksWrite))
    #expect(Role.support.allows(.support) && Role.support.allows(.profilesRead) && !Role.support.allows(.reportsRead))
    #expect(
      Role.analyst.allows(.reportsRead) && !Role.analyst.allows(.profilesRead) && !Role.analyst.allows(.configWrite))
    #expect(Role.viewer.permissions == [.overviewRead, .reportsRead, .configRead])
    for role in Role.allCases { #expect(role.allows(.overviewRead)) }
  }
}
