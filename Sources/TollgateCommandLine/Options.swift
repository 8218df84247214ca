import Foundation

/// Command-line arguments: the leading words form the command, `--name value` pairs the
/// options; anything left over when a command finishes is an error.
public struct Options {
  /// The command's words (`["keys", "create"]`).
  public private(set) var command: [String] = []
  private var values: [String: String] = [:]
  private var positionals: [String] = []
  private var flags: Set<String> = []
  /// Options that take no value.
  public static let valueless: Set<String> = [
    "--no-dashboard", "--accept-expired", "--lifetime", "--follow", "--skip-check",
  ]

  /// Parses the arguments after the program's name.
  public init(_ arguments: [String]) throws {
    var index = 0
    // The first word is the command; some take a second (`keys create`, `lists put`).
    if let first = arguments.first, !first.hasPrefix("-") {
      command = [first]
      index = 1
      let grouped =
        ["keys", "report", "rollups", "config", "apple-ads", "app-store", "spend", "lists", "access", "users", "sso"]
        .contains(
          first)
        // `import FILE` applies a configuration; `import profiles|history` are their own.
        || (first == "import" && ["profiles", "history"].contains(arguments.dropFirst().first ?? ""))
      if grouped, arguments.count > 1, !arguments[1].hasPrefix("-") {
        command.append(arguments[1])
        index = 2
      }
    }
    while index < arguments.count {
      let argument = arguments[index]
      if Self.valueless.contains(argument) {
        flags.insert(argument)
        index += 1
      } else if argument.hasPrefix("--") && argument.count > 2 {
        guard index + 1 < arguments.count else { throw Failure("\(argument) needs a value") }
        values[argument] = arguments[index + 1]
        index += 2
      } else {
        positionals.append(argument)
        index += 1
      }
    }
  }

  /// An option's value, else the environment variable's.
  public mutating func value(_ name: String, env: String?) -> String? {
    if let value = values.removeValue(forKey: name) { return value }
    return env.flatMap { ProcessInfo.processInfo.environment[$0] }
  }

  /// Whether an option with a value was given (without taking it).
  public func has(_ name: String) -> Bool { values[name] != nil }

  /// Whether a valueless option was given.
  public mutating func flag(_ name: String) -> Bool { flags.remove(name) != nil }

  /// An option that must be given.
  public mutating func required(_ name: String) throws -> String {
    guard let value = value(name, env: nil) else { throw Failure("\(name) is required") }
    return value
  }

  /// The next argument that is not an option.
  public mutating func positional() -> String? {
    positionals.isEmpty ? nil : positionals.removeFirst()
  }

  /// Set once the database was read, so later readers get the same answer.
  public var database: String?

  /// `--database-listen-url` / `TOLLGATE_DATABASE_LISTEN_URL`, read with the database: a direct
  /// connection to PostgreSQL when `--database` leads through a transaction pooler.
  public var databaseListenURL: String?

  /// The database file: `--database`, `TOLLGATE_DATABASE`, or `./data/tollgate.sqlite`.
  public var databasePath: String {
    mutating get {
      if databaseListenURL == nil {
        databaseListenURL = value("--database-listen-url", env: "TOLLGATE_DATABASE_LISTEN_URL")
      }
      if let database { return database }
      return value("--database", env: "TOLLGATE_DATABASE") ?? "./data/tollgate.sqlite"
    }
  }

  /// Fails on options or arguments no one asked for (typos must not pass silently).
  public func finish() throws {
    if let unknown = (values.keys.sorted() + flags.sorted()).first { throw Failure("unknown option \(unknown)") }
    if let extra = positionals.first { throw Failure("unexpected argument \(extra)") }
  }
}
