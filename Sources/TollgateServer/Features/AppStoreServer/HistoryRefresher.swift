import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// What a history refresh found.
public struct HistoryRefresh: Codable, Sendable, Hashable {
  public var profileId: String
  /// `requested` (a running server does it within seconds), `running`, `done`, `failed`.
  public var status: String
  public var requestedAt: String
  public var requestedBy: String
  public var finishedAt: String?
  /// Transactions Apple answered, those that changed a profile, those that did not verify.
  public var transactions: Int64
  public var changed: Int64
  public var refused: Int64
  /// The last revision Apple answered, per environment.
  public var revisions: [String: String]
  public var error: String?

  enum CodingKeys: String, CodingKey {
    case status, transactions, changed, refused, revisions, error
    case profileId = "profile_id"
    case requestedAt = "requested_at"
    case requestedBy = "requested_by"
    case finishedAt = "finished_at"
  }

  init(_ record: HistoryRefreshRecord) {
    func iso(_ seconds: Double) -> String { Timestamp.string(Date(timeIntervalSince1970: seconds)) }
    profileId = record.profileId
    status = record.status
    requestedAt = iso(record.requestedAt)
    requestedBy = record.requestedBy
    finishedAt = record.finishedAt.map(iso)
    transactions = record.transactions
    changed = record.changed
    refused = record.refused
    revisions = [:]
    if let revision = record.productionRevision { revisions["Production"] = revision }
    if let revision = record.sandboxRevision { revisions["Sandbox"] = revision }
    error = record.error
  }
}

/// Pulls a customer's whole history from Apple for support (Get Transaction History, every
/// page, from one transaction of each environment the profile has) and records every
/// transaction through the path a notified one takes; the last revision is kept. The route
/// does it at once; the command line leaves a request a running server takes within seconds.
public final class HistoryRefresher: Sendable {
  let store: any AppStoreServerRepository
  let purchases: any PurchaseRepository
  let api: any AppStoreServerAPI
  let secrets: SecretBox?
  let time: any TimeSource
  let logger: Logger
  let settings: @Sendable (Int64) -> AppStoreSettings?
  /// Records a signed transaction Apple answered; true when a profile changed.
  let record: @Sendable (Int64, String) throws -> Bool

  public init(
    store: any AppStoreServerRepository, purchases: any PurchaseRepository, api: any AppStoreServerAPI,
    secrets: SecretBox?, time: any TimeSource, logger: Logger,
    settings: @escaping @Sendable (Int64) -> AppStoreSettings?,
    record: @escaping @Sendable (Int64, String) throws -> Bool
  ) {
    self.store = store
    self.purchases = purchases
    self.api = api
    self.secrets = secrets
    self.time = time
    self.logger = logger
    self.settings = settings
    self.record = record
  }

  func check(appId: Int64, profileId: String) throws -> [(environment: String, transactionId: String)] {
    try Self.sources(purchases: purchases, appId: appId, profileId: profileId, settings: settings(appId))
  }

  /// Where Apple's history is asked from: the latest transaction of each environment the
  /// profile has; the caller's error (404, 409) when there is none.
  static func sources(
    purchases: any PurchaseRepository, appId: Int64, profileId: String, settings: AppStoreSettings?
  ) throws -> [(environment: String, transactionId: String)] {
    let exists = try purchases.purchases(appId: appId) { try $0.profileExists(profileId) }
    guard exists else { throw ProfileService.notFound(profileId) }
    let served = Set(["Production", "Sandbox"]).intersection(settings?.environments ?? [])
    // The latest transaction of each environment: Apple answers the customer's whole history from any.
    var latest: [String: TransactionPayload] = [:]
    for stored in try purchases.transactions(appId: appId, profileId: profileId)
    where served.contains(stored.payload.environment) {
      let payload = stored.payload
      if let known = latest[payload.environment], known.purchaseDate >= payload.purchaseDate { continue }
      latest[payload.environment] = payload
    }
    guard !latest.isEmpty else {
      throw DomainError(
        .noAppStoreTransactions,
        "Profile \(profileId) owns no App Store transaction in \(served.sorted().joined(separator: " or ")): Apple finds a customer's history by one of their transaction ids."
      )
    }
    return latest.sorted { $0.key < $1.key }.map { ($0.key, $0.value.transactionId) }
  }

  /// Refreshes now; the answer says what was found (a failure at Apple is `failed` with why).
  func refresh(appId: Int64, profileId: String, by actor: String) async throws -> HistoryRefresh {
    let sources = try check(appId: appId, profileId: profileId)
    do throws(AppStoreServerKeys.Failure) {
      _ = try AppStoreServerKeys(store: store, secrets: secrets).open(appId: appId, settings: settings(appId))
    } catch {
      switch error {
      case .notConfigured(let message), .credentials(let message):
        throw DomainError.notFound(.credentialsNotFound, "The App Store Server API cannot be called: \(message).")
      }
    }
    // The row as this request stored it: a command-line request landing next is the
    // recovery pass's to run, not this one's.
    let started = try store.requestHistoryRefresh(
      appId: appId, profileId: profileId, by: actor, running: true, at: time.now())
    let finished = await run(started, sources: sources)
    try store.finishHistoryRefresh(finished)
    if finished.status == "failed" {
      throw DomainError(.appStoreAPIFailed, "Get Transaction History: \(finished.error ?? "failed")")
    }
    return HistoryRefresh(finished)
  }

  /// Does the refreshes the command line requested (called by the recovery's passes).
  func runRequested() async {
    let claimed: [HistoryRefreshRecord]
    do { claimed = try store.claimRequestedRefreshes(limit: 8) } catch {
      logger.error("history refresh: cannot claim requests: \(error)")
      return
    }
    for request in claimed {
      var finished: HistoryRefreshRecord
      do {
        finished = await run(request, sources: try check(appId: request.appId, profileId: request.profileId))
      } catch let error as DomainError {
        finished = request
        finished.status = "failed"
        finished.finishedAt = time.now().timeIntervalSince1970
        finished.error = error.message
      } catch {
        finished = request
        finished.status = "failed"
        finished.finishedAt = time.now().timeIntervalSince1970
        finished.error = "\(error)"
      }
      do { try store.finishHistoryRefresh(finished) } catch {
        logger.error("history refresh: cannot record the end of \(request.profileId): \(error)")
      }
    }
  }

  /// Pages each environment's history and records what Apple answers.
  private func run(_ started: HistoryRefreshRecord, sources: [(environment: String, transactionId: String)]) async
    -> HistoryRefreshRecord
  {
    var record = started
    let label = "history refresh: app \(record.appId) profile \(record.profileId)"
    do {
      let opened: AppStoreServerKeys.Opened
      do {
        opened = try AppStoreServerKeys(store: store, secrets: secrets).open(
          appId: record.appId, settings: settings(record.appId))
      } catch {
        switch error {
        case .notConfigured(let message), .credentials(let message): throw RefreshFailure(message: message)
        }
      }
      for source in sources {
        var revision: String?
        while true {
          let page = try await api.transactionHistory(
            environment: source.environment, transactionId: source.transactionId, revision: revision,
            token: try opened.token(now: time.now()))
          for jws in page.signedTransactions ?? [] {
            record.transactions += 1
            do {
              if try self.record(record.appId, jws) { record.changed += 1 }
            } catch let refused as DomainError {
              record.refused += 1
              logger.warn("\(label): a transaction was refused: \(refused.message)")
            }
          }
          revision = page.revision
          if source.environment == "Production" { record.productionRevision = page.revision }
          if source.environment == "Sandbox" { record.sandboxRevision = page.revision }
          if !page.hasMore { break }
        }
      }
      record.status = "done"
      logger.info(
        "\(label): \(record.transactions) transaction(s) from Apple, \(record.changed) changed a profile, \(record.refused) refused"
      )
    } catch let failure as RefreshFailure {
      record.status = "failed"
      record.error = failure.message
    } catch let error as AppStoreServerAPIError {
      record.status = "failed"
      record.error = "\(error)"
      logger.warn("\(label): \(error)")
    } catch {
      record.status = "failed"
      record.error = "\(error)"
      logger.error("\(label): \(error)")
    }
    record.finishedAt = time.now().timeIntervalSince1970
    return record
  }

  private struct RefreshFailure: Error {
    var message: String
  }
}
