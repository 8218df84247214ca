import Foundation
import TollgateDomain

/// The 19 290 most common passwords (from the list Django ships, lower case, printable ASCII of
/// 4 to 64 characters), compiled into the binary.
enum CommonPasswords {
  /// The password policy over this list.
  static let policy = PasswordPolicy(
    common: Set(
      String(decoding: EmbeddedFiles.common_passwords_txt, as: UTF8.self).split(separator: "\n").map(String.init)))
}
