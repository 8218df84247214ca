import Foundation
import Testing
import TollgateAPI

/// Every JSON kind decodes to its own case, however deep (the decoder tries the common kinds
/// first: the order must not change what a value is).
@Suite struct JSONValueTests {
  @Test func eachKindDecodesToItsCase() throws {
    let text =
      #"{"t":true,"f":false,"i":-3,"big":9007199254740993,"d":1.5,"s":"1","n":null,"a":[1,"x",false,null,[],{}],"o":{"k":{"z":0}}}"#
    let value = try WireCoding.decoder.decode(JSONValue.self, from: Data(text.utf8))
    let expected = JSONValue.object([
      "t": .bool(true), "f": .bool(false), "i": .int(-3), "big": .int(9_007_199_254_740_993), "d": .double(1.5),
      "s": .string("1"), "n": .null,
      "a": .array([.int(1), .string("x"), .bool(false), .null, .array([]), .object([:])]),
      "o": .object(["k": .object(["z": .int(0)])]),
    ])
    #expect(value == expected)
    #expect(try WireCoding.decoder.decode(JSONValue.self, from: Data("\"true\"".utf8)) == .string("true"))
    #expect(throws: (any Error).self) { try WireCoding.decoder.decode(JSONValue.self, from: Data("{".utf8)) }
  }
}
