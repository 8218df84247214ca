import Foundation

/// Reads comma-separated values as RFC 4180 writes them: a header row, fields optionally in
/// double quotes (a quote inside doubled), line breaks inside quoted fields, `\r\n` or `\n`.
/// Rows come one at a time, keyed by the header's names, so a file of any size streams (`init(chunks:)`).
public struct CSVReader {
  private var bytes: [UInt8]
  private var index = 0
  /// More of the input, a chunk at a time; nil or empty at its end.
  private let more: () throws -> [UInt8]?
  private var ended = false
  /// The header row's names.
  public private(set) var header: [String] = []
  /// The line the current row started on (1: the header).
  public private(set) var line = 0
  private var nextLine = 1

  /// A reader of `data`; the first row is the header.
  public init(_ data: Data) {
    more = { nil }
    bytes = [UInt8](data)
    // Everything is in memory already: reading cannot fail.
    try? readHeader()
  }

  /// A reader of input that arrives in chunks (a file or a decompressor read piece by piece),
  /// so only the row being read is held; an error from `chunks` is thrown here or by `next()`.
  public init(chunks: @escaping () throws -> [UInt8]?) throws {
    more = chunks
    bytes = []
    try readHeader()
  }

  private mutating func readHeader() throws {
    // A UTF-8 byte order mark is not part of the first name.
    if try available(3), bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    header = try nextFields() ?? []
  }

  /// Whether `count` bytes from `index` on are there, reading more input as needed (the bytes
  /// already read are dropped first).
  private mutating func available(_ count: Int) throws -> Bool {
    while bytes.count - index < count, !ended {
      guard let chunk = try more(), !chunk.isEmpty else {
        ended = true
        break
      }
      if index > 0 {
        bytes.removeFirst(index)
        index = 0
      }
      bytes.append(contentsOf: chunk)
    }
    return bytes.count - index >= count
  }

  /// The next row by header name (missing trailing fields are absent), or nil at the end.
  public mutating func next() throws -> [String: String]? {
    while let fields = try nextFields() {
      if fields.count == 1, fields[0].isEmpty { continue }
      var row: [String: String] = [:]
      for (name, value) in zip(header, fields) { row[name] = value }
      return row
    }
    return nil
  }

  private mutating func nextFields() throws -> [String]? {
    guard try available(1) else { return nil }
    line = nextLine
    var fields: [String] = []
    var field: [UInt8] = []
    var quoted = false
    while try available(1) {
      let byte = bytes[index]
      index += 1
      if quoted {
        if byte == 0x22 {
          if try available(1), bytes[index] == 0x22 {
            field.append(0x22)
            index += 1
          } else {
            quoted = false
          }
        } else {
          if byte == 0x0A { nextLine += 1 }
          field.append(byte)
        }
        continue
      }
      switch byte {
      case 0x22 where field.isEmpty: quoted = true
      case 0x2C:
        fields.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
      case 0x0A:
        nextLine += 1
        if field.last == 0x0D { field.removeLast() }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields
      default: field.append(byte)
      }
    }
    if field.last == 0x0D { field.removeLast() }
    fields.append(String(decoding: field, as: UTF8.self))
    return fields
  }
}
