import Foundation
import TollgateAPI
import TollgateCommandLine
import TollgateDomain
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate import profiles FILE` and `tollgate import history`: an existing app's users,
/// with their install dates, attribution and App Store history, brought onto Tollgate.
enum ImportCommands {
  static func profiles(_ options: inout Options) throws {
    guard let file = options.positional() else {
      throw Failure("import profiles needs a FILE (NDJSON, or a peer's CSV with --from; gzipped or not; - reads stdin)")
    }
    let name = try options.required("--app")
    let refusalsFile = options.value("--refusals", env: nil)
    let fromText = options.value("--from", env: nil) ?? "ndjson"
    let peer = PeerExport(rawValue: fromText)
    guard peer != nil || fromText == "ndjson" else { throw Failure("--from is ndjson, revenuecat or adapty") }
    let databasePath = options.databasePath
    try options.finish()
    let input = try ImportInput(file)
    defer { input.close() }
    // A connection for each of the import's two lanes (`ProfileImportService`): with one, a lane
    // would wait for the other's whole batch, and past the pool's wait give up.
    let store = try StoreLocation.open(databasePath, listenURL: options.databaseListenURL, connections: 2).database
    defer { store.close() }
    guard let app = try store.app(named: name) else {
      throw Failure.missing("no app named \(name); create it with: tollgate keys create --app \(name)")
    }
    let service = ProfileImportService(database: store)
    if let peer {
      // A peer's export: its rows grouped by customer first (a customer's rows may be anywhere),
      // the whole file read before an import begins.
      let (lines, skipped) = try peer.lines(try CSVReader(chunks: input.read))
      try input.finish()
      let session = try service.begin(appId: app.id, source: fromText, by: "cli")
      for (line, reason) in skipped { session.refuse(Int64(line), "$", reason) }
      for (line, value) in lines { session.feed(line: [UInt8](WireCoding.encode(value)), number: Int64(line)) }
      return try finish(session, service: service, app: app, name: name, file: file, refusalsFile: refusalsFile)
    }
    let session = try service.begin(appId: app.id, source: fromText, by: "cli")
    let progress = isatty(STDERR_FILENO) == 1
    while let chunk = try input.read(), !chunk.isEmpty {
      chunk.withUnsafeBufferPointer { session.feed(chunk: $0) }
      if progress { FileHandle.standardError.write(Data("\r\(session.lines) lines".utf8)) }
    }
    try input.finish()
    if progress { FileHandle.standardError.write(Data("\r".utf8)) }
    try finish(session, service: service, app: app, name: name, file: file, refusalsFile: refusalsFile)
  }

  static func finish(
    _ session: ProfileImportService.Session, service: ProfileImportService, app: AppRecord, name: String, file: String,
    refusalsFile: String?
  ) throws {
    let summary: ProfileImportSummary
    do { summary = try session.finish() } catch let error as DomainError { throw Failure(error.message) }
    print(
      "import \(summary.importId) of \(file) into \(name): \(summary.lines) lines, \(summary.imported) profiles imported, \(summary.existing) already there, \(summary.refused) refused"
    )
    if summary.histories > 0 {
      print(
        "\(summary.histories) customers' App Store history will be fetched from Apple by a running server (needs app_store.server_api and the In-App Purchase key); see tollgate import history --app \(name)"
      )
    }
    if summary.refused > 0 {
      let all = try service.summary(appId: app.id, id: summary.importId).refusals
      for refusal in all.prefix(10) { print("  line \(refusal.line) \(refusal.path): \(refusal.message)") }
      if let refusalsFile {
        let text = all.map { "{\"line\":\($0.line),\"path\":\(quoted($0.path)),\"message\":\(quoted($0.message))}" }
          .joined(separator: "\n")
        do { try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: refusalsFile)) } catch {
          throw Failure("cannot write \(refusalsFile)")
        }
        print("every refused line is in \(refusalsFile)")
      } else if all.count > 10 {
        print("  … \(all.count - 10) more: --refusals FILE writes them all")
      }
    }
  }

  static func history(_ options: inout Options) throws {
    let name = try options.required("--app")
    let follow = options.flag("--follow")
    let databasePath = options.databasePath
    try options.finish()
    let store = try StoreLocation.open(databasePath, listenURL: options.databaseListenURL, connections: 1).database
    defer { store.close() }
    guard let app = try store.app(named: name) else {
      throw Failure.missing("no app named \(name); create it with: tollgate keys create --app \(name)")
    }
    let terminal = isatty(STDOUT_FILENO) == 1
    while true {
      let status = try HistoryImporter(database: store).progress(appId: app.id)
      let line =
        "App Store histories of \(name): \(status.done) of \(status.customers) customers done, \(status.failed) failed, \(status.pending) pending; \(status.transactions) transactions, \(status.refused) refused"
      let left = status.estimatedSecondsLeft.map { "about \($0) s left at the pace so far" }
      if follow && terminal {
        // One line redrawn in place: a bar of the customers finished, then the figures.
        let finished = status.done + status.failed
        let filled = status.customers > 0 ? Int(30 * finished / status.customers) : 30
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        FileHandle.standardOutput.write(
          Data(
            "\r\u{1B}[K[\(bar)] \(finished)/\(status.customers) customers, \(status.transactions) transactions, \(status.refused) refused\(left.map { "; " + $0 } ?? "")"
              .utf8))
      }
      guard follow, status.pending > 0 else {
        if follow && terminal { print("") }
        print(line)
        if let left { print(left) }
        if let error = status.lastError { print("last error: \(error)") }
        return
      }
      if !terminal { print(line) }
      sleep(2)
    }
  }

  static func quoted(_ text: String) -> String {
    String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
  }
}
