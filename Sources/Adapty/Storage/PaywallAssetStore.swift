import Foundation

/// The images of paywall documents, kept on disk by SHA-256 under the storage directory. An
/// image comes from the disk, else the fallback file, else the server; one that cannot be had
/// is simply absent: the paywall is drawn without it, never not drawn.
actor PaywallAssetStore {
  private let directory: URL
  private let client: BackendClient
  private let fallback: FallbackFlows
  private let clock: any SDKClock
  /// The disk budget: the least recently written images go first when it is exceeded.
  private var diskLimit: Int?
  private var inFlight: [String: Task<Data?, Never>] = [:]

  init(directory: URL, client: BackendClient, fallback: FallbackFlows, clock: any SDKClock, diskLimit: Int? = nil) {
    self.directory = directory
    self.client = client
    self.fallback = fallback
    self.clock = clock
    self.diskLimit = diskLimit
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// Sets the disk budget (`AdaptyUI.Configuration`'s media cache).
  func limitDisk(to bytes: Int?) {
    diskLimit = bytes
    trim()
  }

  /// The image if it is on disk or in the fallback file; no network.
  func localData(sha256: String) -> Data? {
    guard Self.isHash(sha256) else { return nil }
    if let data = try? Data(contentsOf: file(sha256)) { return data }
    return fallback.asset(sha256: sha256)
  }

  /// Every image of `hashes` that can be had within `timeout` seconds (nil: no deadline),
  /// downloading the missing ones in parallel; a download still running at the deadline
  /// goes on and lands on disk for the next time.
  func load(_ hashes: [String], timeout: Double?) async -> [String: Data] {
    var found: [String: Data] = [:]
    var downloads: [(String, Task<Data?, Never>)] = []
    for hash in hashes where Self.isHash(hash) {
      if let data = localData(sha256: hash) {
        found[hash] = data
      } else {
        downloads.append((hash, download(hash)))
      }
    }
    guard !downloads.isEmpty else { return found }
    let pending = downloads
    let fetched: @Sendable () async -> [String: Data] = {
      var result: [String: Data] = [:]
      for (hash, task) in pending { result[hash] = await task.value }
      return result
    }
    if let timeout {
      if case .value(let result)? = try? await clock.race(seconds: timeout, fetched) {
        found.merge(result) { first, _ in first }
      } else {
        Log.warn("paywall images not loaded within \(timeout) s; drawing without them")
      }
    } else {
      found.merge(await fetched()) { first, _ in first }
    }
    return found
  }

  /// Starts downloading what is missing, without waiting (called when a flow arrives): a look
  /// at the directory, no image read.
  func prefetch(_ hashes: [String]) {
    for hash in hashes where Self.isHash(hash) && !FileManager.default.fileExists(atPath: file(hash).path) {
      if fallback.asset(sha256: hash) == nil { _ = download(hash) }
    }
  }

  private func download(_ hash: String) -> Task<Data?, Never> {
    if let running = inFlight[hash] { return running }
    let client = self.client
    let task = Task<Data?, Never> {
      do throws(BackendClient.Failure) {
        let data = try await client.asset(sha256: hash)
        self.keep(data, sha256: hash)
        return data
      } catch {
        Log.warn("paywall image \(hash) not loaded: \(error.error.message)")
        self.forget(hash)
        return nil
      }
    }
    inFlight[hash] = task
    return task
  }

  private func keep(_ data: Data, sha256: String) {
    inFlight[sha256] = nil
    do {
      try data.write(to: file(sha256), options: .atomic)
    } catch {
      Log.warn("cannot keep paywall image \(sha256): \(error)")
    }
    trim()
  }

  private func forget(_ hash: String) { inFlight[hash] = nil }

  /// Removes the oldest images until the disk budget holds.
  private func trim() {
    guard let diskLimit else { return }
    let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
    let files =
      (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
    var entries = files.compactMap { url -> (URL, Int, Date)? in
      guard let values = try? url.resourceValues(forKeys: Set(keys)), let size = values.fileSize else { return nil }
      return (url, size, values.contentModificationDate ?? .distantPast)
    }
    var total = entries.reduce(0) { $0 + $1.1 }
    entries.sort { $0.2 < $1.2 }
    for (url, size, _) in entries where total > diskLimit {
      try? FileManager.default.removeItem(at: url)
      total -= size
    }
  }

  private func file(_ sha256: String) -> URL { directory.appendingPathComponent(sha256) }

  /// A lowercase hex SHA-256: anything else is never a file name or a request.
  static func isHash(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }
}
