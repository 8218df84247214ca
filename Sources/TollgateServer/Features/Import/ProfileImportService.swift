import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// What an import did.
public struct ProfileImportSummary: Codable, Sendable, Hashable {
  /// The import's number (`GET /v1/admin/imports/{id}` answers it again, with every refusal).
  public var importId: Int64
  public var source: String
  public var lines: Int64
  /// New profiles; profiles already there (left as they are); lines refused.
  public var imported: Int64
  public var existing: Int64
  public var refused: Int64
  /// New customers whose history is fetched from Apple (GET /v1/admin/history-import).
  public var histories: Int64
  /// The refused lines: `{line, path, message}` (the first 100 here; every one up to 10 000 in
  /// the import's record).
  public var refusals: [Refusal]
  public var startedAt: String
  public var finishedAt: String?

  /// One refused line.
  public struct Refusal: Codable, Sendable, Hashable {
    public var line: Int64
    public var path: String
    public var message: String
  }

  enum CodingKeys: String, CodingKey {
    case source, lines, imported, existing, refused, histories, refusals
    case importId = "import_id"
    case startedAt = "started_at"
    case finishedAt = "finished_at"
  }

  init(_ record: ProfileImportRecord, limit: Int) {
    importId = record.id
    source = record.source
    lines = record.lines
    imported = record.imported
    existing = record.existing
    refused = record.refused
    histories = record.histories
    refusals = record.refusals.split(separator: "\n").prefix(limit).compactMap {
      try? JSONDecoder().decode(Refusal.self, from: Data($0.utf8))
    }
    startedAt = Timestamp.string(Date(timeIntervalSince1970: record.startedAt))
    finishedAt = record.finishedAt.map { Timestamp.string(Date(timeIntervalSince1970: $0)) }
  }
}

/// An app's move onto Tollgate at a glance: its latest imports and the day it switched over.
public struct ProfileImportOverview: Codable, Sendable, Hashable {
  /// The latest 20 imports, newest first (their refusals: `GET /v1/admin/imports/{id}`).
  public var imports: [ProfileImportSummary]
  /// The first day a profile installed with Tollgate's SDK counts in the cohorts, when the app
  /// also has imported profiles (`YYYY-MM-DD`); the console marks it on its charts.
  public var switchOverDay: String?

  enum CodingKeys: String, CodingKey {
    case imports
    case switchOverDay = "switch_over_day"
  }
}

/// Brings profiles from before Tollgate: lines are checked one by one (a wrong line is refused
/// with its number, the rest go on), stored in batches with their install cohorts, and each
/// new customer with transaction ids gets a job that fetches their history from Apple. The same
/// file imported again changes nothing.
public final class ProfileImportService: Sendable {
  let imports: any ProfileImportRepository
  let apps: any AppRepository
  let time: any TimeSource
  /// Told when history jobs were created (nil in the command line: a server picks them up).
  let histories: (@Sendable () -> Void)?
  /// Lines stored per transaction.
  let batchSize: Int
  /// Batches stored at once, each on its own connection.
  let lanes: Int
  /// Refusals kept with the import.
  static let keptRefusals = 10_000

  package init(
    imports: any ProfileImportRepository, apps: any AppRepository, time: any TimeSource,
    histories: (@Sendable () -> Void)? = nil, lanes: Int = 2, batchSize: Int = 10_000
  ) {
    self.lanes = max(1, lanes)
    self.batchSize = max(1, batchSize)
    self.imports = imports
    self.apps = apps
    self.time = time
    self.histories = histories
  }

  /// An import in progress: fed line by line from one thread at a time.
  public final class Session {
    let service: ProfileImportService
    var record: ProfileImportRecord
    private let lanes: [Lane]
    var failure: (any Error)?

    init(service: ProfileImportService, record: ProfileImportRecord) {
      self.service = service
      self.record = record
      lanes = (0..<service.lanes).map(Lane.init)
    }

    /// A piece of NDJSON as it arrives (a file's or a request body's chunk): each complete line
    /// is fed, a line cut by the chunk's end waits for the rest (or for `finish`).
    public func feed(chunk bytes: UnsafeBufferPointer<UInt8>) {
      var start = bytes.startIndex
      for index in bytes.indices where bytes[index] == 0x0A {
        if carry.isEmpty {
          feed(line: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        } else {
          carry.append(contentsOf: bytes[start..<index])
          feed(line: carry)
          carry.removeAll(keepingCapacity: true)
        }
        start = index + 1
      }
      carry.append(contentsOf: bytes[start...])
    }

    /// Lines read so far.
    public var lines: Int64 { record.lines }

    /// The end of a line cut by a chunk's end.
    private var carry: [UInt8] = []

    /// One line of NDJSON (without its line break); blank lines are skipped. `number` names it
    /// in refusals when it is not the line's position (a peer export's customer: its CSV line).
    public func feed(line bytes: some Collection<UInt8>, number given: Int64? = nil) {
      guard failure == nil else { return }
      record.lines += 1
      let number = given ?? record.lines
      if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
        record.lines -= 1
        return
      }
      guard let json = try? WireCoding.decoder.decode(JSONValue.self, from: Data(bytes)) else {
        refuse(number, "$", "not a JSON object on one line")
        return
      }
      switch ProfileImportLine.parse(json, appId: record.appId, now: service.time.now()) {
      case .success(let profile):
        let lane = lane(of: profile.profile)
        lane.batch.append(profile)
        if lane.batch.count >= service.batchSize { flush(lane) }
      case .failure(let error):
        for detail in error.details ?? [.init(path: "$", message: error.message)] {
          refuse(number, detail.path, detail.message)
        }
      }
    }

    /// A line the import could not take (counted once however many problems it had).
    public func refuse(_ line: Int64, _ path: String, _ message: String) {
      if line != lastRefusedLine {
        record.refused += 1
        lastRefusedLine = line
      }
      guard keptRefusals < ProfileImportService.keptRefusals else { return }
      keptRefusals += 1
      let entry = ProfileImportSummary.Refusal(line: line, path: path, message: message)
      if let data = try? JSONEncoder.sorted.encode(entry) {
        record.refusals += String(decoding: data, as: UTF8.self) + "\n"
      }
    }

    private var lastRefusedLine: Int64 = 0
    private var keptRefusals = 0

    /// One writer of batches: the batch being read into it, and the one being stored. Reading
    /// goes on while a lane stores, at most one batch ahead (parsing a batch and storing the one
    /// before use both cores).
    private final class Lane {
      var batch: [ImportedProfile] = []
      let written = Written()
      let storing = DispatchGroup()
      let writer: DispatchQueue

      init(_ index: Int) {
        writer = DispatchQueue(label: "tollgate.profile-import.writer.\(index)")
      }
    }

    /// Where a lane's batch being stored reports back.
    private final class Written: Sendable {
      let state = Mutex<(outcome: ImportBatchOutcome, failure: (any Error)?)>((ImportBatchOutcome(), nil))
    }

    /// The lane a profile is stored by: one customer (or, without one, one id) always the same,
    /// so that two lines of a customer are never stored at once by two lanes (the later one
    /// finds the earlier stored and is counted as existing, as with one lane).
    private func lane(of profile: ProfileRecord) -> Lane {
      guard lanes.count > 1 else { return lanes[0] }
      // FNV-1a: Swift's own hash is seeded per process; this one is the same in every run.
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in (profile.customerUserId ?? profile.id).utf8 {
        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
      }
      return lanes[Int(hash % UInt64(lanes.count))]
    }

    /// Hands a lane's batch to its writer once the one before it is stored.
    private func flush(_ lane: Lane) {
      guard !lane.batch.isEmpty, failure == nil else { return }
      settle(lane)
      guard failure == nil else { return }
      let (taken, service, appId, written, storing) = (lane.batch, service, record.appId, lane.written, lane.storing)
      lane.batch = []
      lane.batch.reserveCapacity(service.batchSize)
      storing.enter()
      lane.writer.async {
        do {
          let outcome = try service.imports.importBatch(appId: appId, taken, at: service.time.now())
          written.state.withLock { $0.outcome = outcome }
        } catch {
          written.state.withLock { $0.failure = error }
        }
        storing.leave()
      }
    }

    /// Waits for the lane's batch being stored and counts what it did.
    private func settle(_ lane: Lane) {
      lane.storing.wait()
      let (outcome, failed) = lane.written.state.withLock { state in
        defer { state = (ImportBatchOutcome(), nil) }
        return state
      }
      record.imported += Int64(outcome.imported)
      record.existing += Int64(outcome.existing)
      record.histories += Int64(outcome.histories)
      if let failed { failure = failure ?? failed }
    }

    /// Stores the rest and the counts; what the import did. A storage failure is thrown (the
    /// batches stored before it stay: importing the file again completes it).
    public func finish() throws -> ProfileImportSummary {
      if !carry.isEmpty {
        feed(line: carry)
        carry.removeAll()
      }
      for lane in lanes { flush(lane) }
      for lane in lanes { settle(lane) }
      record.finishedAt = service.time.now().timeIntervalSince1970
      try service.imports.finishImport(record)
      if let failure { throw failure }
      if record.histories > 0 { service.histories?() }
      try service.apps.audit(
        appId: record.appId,
        AuditRecord(
          at: service.time.now(), actor: record.requestedBy, action: "profiles.imported",
          detail: AuditDetail.json([
            "import_id": .int(record.id), "source": .string(record.source), "imported": .int(record.imported),
            "existing": .int(record.existing), "refused": .int(record.refused), "histories": .int(record.histories),
          ])))
      return ProfileImportSummary(record, limit: 100)
    }
  }

  /// Starts an import of `source` (`ndjson`, `revenuecat`, `adapty`).
  public func begin(appId: Int64, source: String, by actor: String) throws -> Session {
    let now = time.now()
    let id = try imports.beginImport(appId: appId, source: source, by: actor, at: now)
    return Session(
      service: self,
      record: ProfileImportRecord(
        id: id, appId: appId, source: source, startedAt: now.timeIntervalSince1970, finishedAt: nil, lines: 0,
        imported: 0, existing: 0, refused: 0, histories: 0, refusals: "", requestedBy: actor))
  }

  /// The app's latest imports and its switch-over day.
  public func overview(appId: Int64) throws -> ProfileImportOverview {
    ProfileImportOverview(
      imports: try imports.profileImports(appId: appId, limit: 20).map { ProfileImportSummary($0, limit: 0) },
      switchOverDay: try imports.switchOverDay(appId: appId).map(PlacementReport.isoDay))
  }

  /// An import with every refusal kept, or 404.
  public func summary(appId: Int64, id: Int64) throws -> ProfileImportSummary {
    guard let record = try imports.profileImport(appId: appId, id: id) else {
      throw DomainError.notFound(.importNotFound, "No profile import \(id) in this app.")
    }
    return ProfileImportSummary(record, limit: Self.keptRefusals)
  }
}

extension JSONEncoder {
  /// Keys sorted: the same value always encodes the same.
  static var sorted: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }
}
