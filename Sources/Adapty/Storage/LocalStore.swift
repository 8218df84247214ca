import Foundation
import TollgateAPI

/// JSON files under the storage directory, each written atomically (write to a temporary
/// file, then rename), so a crash mid-write leaves the previous version. A file that does
/// not decode is logged and ignored, never a crash.
struct LocalStore: Sendable {
  let directory: URL

  init(directory: URL) {
    self.directory = directory
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      Log.error("cannot create the storage directory \(directory.path): \(error); nothing will be kept across launches")
    }
  }

  func read<T: Decodable>(_ type: T.Type, from name: String) -> T? {
    let url = directory.appendingPathComponent(name)
    guard let data = try? Data(contentsOf: url) else { return nil }
    do {
      return try WireCoding.decoder.decode(type, from: data)
    } catch {
      Log.warn("ignoring unreadable \(name) (\(data.count) bytes): \(error)")
      return nil
    }
  }

  func write<T: Encodable>(_ value: T, to name: String) {
    do {
      try WireCoding.encode(value).write(to: directory.appendingPathComponent(name), options: .atomic)
    } catch {
      Log.error("cannot write \(name): \(error)")
    }
  }

  func remove(_ name: String) {
    try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
  }
}

/// File names, one per concern.
enum StoredFile {
  static let profile = "profile.json"
  static let flows = "flows.json"
  static let events = "events.json"
  static let attribution = "attribution.json"
  static let transactions = "transactions.json"
  /// Transaction ids this install handed to the server.
  static let handedOver = "handed-over.json"
}
