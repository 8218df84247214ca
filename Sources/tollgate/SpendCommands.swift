import Foundation
import TollgateAPI
import TollgateCommandLine
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate apple-ads credentials|status|import` and `tollgate spend import`: the Apple Ads
/// spend import from the command line, on the database directly (a running server looks for
/// due imports every 5 seconds, so it picks up new credentials and run requests within seconds).
enum SpendCommands {
  /// Opens the database and the app named by `--app`, and the secrets key when `sealing`.
  static func open(_ options: inout Options, sealing: Bool = false) throws -> (
    any Database, AppRecord, AppleAdsSpendService
  ) {
    let name = try options.required("--app")
    let databasePath = options.databasePath
    let box = sealing ? try CommandLineTool.secretsBox(&options, databasePath: databasePath) : nil
    let store = try StoreLocation.open(databasePath, listenURL: options.databaseListenURL, connections: 1).database
    guard let app = try store.app(named: name) else {
      store.close()
      throw Failure.missing("no app named \(name); create it with: tollgate keys create --app \(name)")
    }
    return (store, app, AppleAdsSpendService(database: store, secrets: box, time: SystemTimeSource()))
  }

  static func credentials(_ options: inout Options) throws {
    let file = try options.required("--key")
    let (store, app, service) = try open(&options, sealing: true)
    defer { store.close() }
    try options.finish()
    let pem: String
    do { pem = try String(contentsOfFile: file, encoding: .utf8) } catch { throw Failure("cannot read \(file)") }
    let status = try service.saveCredentials(appId: app.id, privateKey: pem, by: "cli")
    print(
      "sealed the Apple Ads API key of \(app.name) (public key SHA-256 \(status.credentials?.keyFingerprint ?? "")); a running server starts the import within seconds"
    )
  }

  static func status(_ options: inout Options) throws {
    let (store, app, service) = try open(&options)
    defer { store.close() }
    try options.finish()
    let status = try service.status(appId: app.id)
    print("apple_ads_api configured: \(status.configured ? "yes, org \(status.orgId.map(String.init) ?? "")" : "no")")
    if let credentials = status.credentials {
      print(
        "credentials: key \(credentials.keyFingerprint.prefix(16))…, uploaded \(credentials.uploadedAt), last used \(credentials.lastUsedAt ?? "never")"
      )
    } else {
      print("credentials: none (tollgate apple-ads credentials --app \(app.name) --key FILE)")
    }
    guard let importer = status.importer else { return }
    print("importer: \(importer.status)\(importer.failure.map { " (\($0))" } ?? "")")
    if let resumes = importer.resumesAt {
      print(
        "  the instance running it stopped renewing its lease; the run resumes when the lease expires at \(resumes)")
    }
    if let run = importer.run { print("  run in progress: \(run.from) … \(run.to), next day \(run.nextDay)") }
    print("  last run \(importer.lastRunAt ?? "never"), last success \(importer.lastSuccessAt ?? "never")")
    if let next = importer.nextRunAt { print("  next run \(next)") }
    if let error = importer.lastError { print("  last error: \(error)") }
    print("  rows imported: \(importer.rowsImported)")
    if importer.rowsSkipped > 0 {
      print("  rows left out (unreadable): \(importer.rowsSkipped), the last: \(importer.lastSkipped ?? "")")
    }
  }

  static func runNow(_ options: inout Options) throws {
    let (store, app, service) = try open(&options)
    defer { store.close() }
    try options.finish()
    _ = try service.runNow(appId: app.id, by: "cli")
    print("the import of \(app.name) is due now: a running server starts it within seconds")
  }

  static func importFile(_ options: inout Options) throws {
    guard let file = options.positional() else { throw Failure("spend import needs a FILE.csv") }
    let (store, app, service) = try open(&options)
    defer { store.close() }
    try options.finish()
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw Failure("cannot read \(file)") }
    let summary = try service.importFile(appId: app.id, data: data, by: "cli")
    print(
      "imported \(summary.rows) spend rows into \(app.name): \(summary.from ?? "-") … \(summary.to ?? "-"), \(summary.currencies.joined(separator: ", "))"
    )
  }
}
