import Foundation
import Testing
import TollgateSupport

@Suite("CSV reading")
struct CSVReaderTests {
  static let text =
    "\u{FEFF}id,note,amount\r\n1,\"a, quoted \"\"note\"\"\",9.99\r\n\n2,\"two\nlines\",\r\n3,plain,1\n"

  static func rows(_ reader: CSVReader) throws -> [[String: String]] {
    var reader = reader
    var rows: [[String: String]] = []
    while let row = try reader.next() { rows.append(row) }
    return rows
  }

  @Test("rows read from chunks of any size equal the rows of the whole file")
  func chunked() throws {
    let whole = try Self.rows(CSVReader(Data(Self.text.utf8)))
    #expect(
      whole == [
        ["id": "1", "note": "a, quoted \"note\"", "amount": "9.99"], ["id": "2", "note": "two\nlines", "amount": ""],
        ["id": "3", "note": "plain", "amount": "1"],
      ])
    let bytes = [UInt8](Self.text.utf8)
    for size in [1, 2, 3, 7, 64] {
      var offset = 0
      let reader = try CSVReader(chunks: {
        guard offset < bytes.count else { return nil }
        defer { offset += size }
        return Array(bytes[offset..<min(offset + size, bytes.count)])
      })
      #expect(reader.header == ["id", "note", "amount"], "chunks of \(size)")
      #expect(try Self.rows(reader) == whole, "chunks of \(size)")
    }
  }

  @Test("an input that fails while read throws from next()")
  func failing() throws {
    struct Broken: Error {}
    var calls = 0
    var reader = try CSVReader(chunks: {
      calls += 1
      if calls == 1 { return Array("id\n1\n".utf8) }
      throw Broken()
    })
    #expect(try reader.next() == ["id": "1"])
    #expect(throws: Broken.self) { try reader.next() }
  }
}
