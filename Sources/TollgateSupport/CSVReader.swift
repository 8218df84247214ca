import Foundation

/// Reads comma-separated values as RFC 4180 writes them: a header row, fields optionally in
/// double quotes (a quote inside doubled), line breaks inside quoted fields, `\r\n` or `\n`.
/// Rows come one at a time, keyed by the header's names, so a file of any size streams.
public struct CSVReader {
  private var bytes: [UInt8]
  private var index = 0
  /// The header row's names.
  public private(set) var header: [String] = []
  /// The line the current row started on (1: the header).
  public private(set) var line = 0
  private var nextLine = 1

  /// A reader of `data`; the first row is the header.
  public init(_ data: Data) {
    bytes = [UInt8](data)
    // A UTF-8 byte order mark is not part of the first name.
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    header = nextFields() ?? []
  }

  /// The next row by header name (missing trailing fields are absent), or nil at the end.
  public mutating func next() -> [String: String]? {
    while let fields = nextFields() {
      if fields.count == 1, fields[0].isEmpty { continue }
      var row: [String: String] = [:]
      for (name, value) in zip(header, fields) { row[name] = value }
      return row
    }
    return nil
  }

  private mutating func nextFields() -> [String]? {
    guard index < bytes.count else { return nil }
    line = nextLine
    var fields: [String] = []
    var field: [UInt8] = []
    var quoted = false
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if quoted {
        if byte == 0x22 {
          if index < bytes.count, bytes[index] == 0x22 {
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
