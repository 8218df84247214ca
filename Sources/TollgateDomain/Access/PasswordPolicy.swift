/// What a new password must be: long (at least 12 characters, at most 1 024 bytes: Argon2id
/// hashes what it is given, so a megabyte would cost the server), not a common password, not a
/// common password with digits or symbols added, not the person's e-mail, and not one
/// character repeated.
public struct PasswordPolicy: Sendable {
  /// The fewest characters.
  public static let minimumLength = 12
  /// The most bytes of UTF-8.
  public static let maximumBytes = 1_024

  /// Common passwords, in lower case.
  let common: Set<String>

  /// A policy refusing the passwords in `common` (compared in lower case).
  public init(common: Set<String>) {
    self.common = Set(common.map { $0.lowercased() })
  }

  /// Why `password` is refused for the person with `email`, or nil when it is accepted.
  public func problem(with password: String, email: String) -> String? {
    if password.count < Self.minimumLength {
      return "A password has at least \(Self.minimumLength) characters."
    }
    if password.utf8.count > Self.maximumBytes {
      return "A password has at most \(Self.maximumBytes) bytes."
    }
    let lower = password.lowercased()
    if common.contains(lower) { return "This password is on the list of common passwords." }
    // "password2024!", "iloveyou1234": a common word with digits or symbols after it.
    let stem = String(lower.reversed().drop(while: { !$0.isLetter }).reversed())
    if stem != lower, common.contains(stem) {
      return "This password is a common password with digits or symbols added."
    }
    let address = email.lowercased()
    let local = address.split(separator: "@").first.map(String.init) ?? ""
    if (!address.isEmpty && lower.contains(address)) || (local.count >= 4 && lower.contains(local)) {
      return "A password must not contain your e-mail address."
    }
    if Set(password).count < 4 { return "A password needs more than a few different characters." }
    return nil
  }
}
