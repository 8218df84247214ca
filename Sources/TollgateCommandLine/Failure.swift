import Foundation

/// An error the tool explains itself: exit status 2 for usage errors, 1 for the rest.
public struct Failure: Error {
  /// What went wrong, for standard error.
  public let message: String
  /// The exit status.
  public let status: Int32

  /// A failure; usage errors keep the default status 2.
  public init(_ message: String, status: Int32 = 2) {
    self.message = message
    self.status = status
  }

  /// Something the command needs does not exist (exit status 1).
  public static func missing(_ message: String) -> Failure { Failure(message, status: 1) }
}

/// Writes a line to standard output at once (print is block-buffered when piped).
public func say(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
