import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The body of `PUT /v1/admin/lists/{id}` read as it arrives: `text/plain` one value a line
/// (split as chunks come in, so only the values are kept), or `application/json` an array of
/// strings and integers (collected, then parsed by Foundation's JSON parser).
final class SavedListUpload: BodySink {
  /// What the body held.
  enum Reading: Sendable {
    /// The values, with the line each came from (text) or nil (JSON: by index).
    case values([String], lines: [Int]?)
    case problem(DomainError)
  }

  private enum Format {
    case lines, json
  }

  /// The body limit of the route: a million values of 64 bytes fit.
  static let maximumBytes = 64 << 20

  private let format: Format?
  private var carry: [UInt8] = []
  private var values: [String] = []
  /// The line number of each value (text), for error details.
  private var lineNumbers: [Int] = []
  private var line = 0
  private var json = Data()
  private var problem: DomainError?

  init(contentType: String?) {
    let media = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
    switch media {
    case "text/plain": format = .lines
    case "application/json": format = .json
    default:
      format = nil
      problem = DomainError(
        .unsupportedMediaType, "Send the list as text/plain (one value a line) or application/json (an array).")
    }
  }

  func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard problem == nil, let format else { return }
    switch format {
    case .json: json.append(bytes)
    case .lines:
      var start = bytes.startIndex
      for index in bytes.indices where bytes[index] == 0x0A {
        carry.append(contentsOf: bytes[start..<index])
        takeLine()
        start = index + 1
      }
      carry.append(contentsOf: bytes[start...])
    }
  }

  private func takeLine() {
    line += 1
    if carry.last == 0x0D { carry.removeLast() }
    defer { carry.removeAll(keepingCapacity: true) }
    guard !carry.isEmpty else { return }
    guard let text = String(validating: carry, as: UTF8.self) else {
      problem = .validation([.init(path: "line \(line)", message: "not UTF-8")])
      return
    }
    // Beyond the limit the values are no longer kept: the answer is an error anyway.
    guard values.count <= SavedList.maximumValues else { return }
    values.append(text)
    lineNumbers.append(line)
  }

  func finish() -> any Sendable { reading() }

  /// What the body held, once it has all arrived.
  func reading() -> Reading {
    if let problem { return .problem(problem) }
    switch format {
    case .lines:
      if !carry.isEmpty { takeLine() }
      if let problem { return .problem(problem) }
      return .values(values, lines: lineNumbers)
    case .json:
      guard let array = (try? WireCoding.decoder.decode(JSONValue.self, from: json))?.arrayValue else {
        return .problem(DomainError(.malformedJSON, "The body is not a JSON array of strings and integers."))
      }
      var texts: [String] = []
      texts.reserveCapacity(array.count)
      var problems: [APIError.Detail] = []
      for (index, element) in array.enumerated() {
        switch element {
        case .string(let text): texts.append(text)
        case .int(let number): texts.append(String(number))
        default:
          if problems.count < 20 {
            problems.append(.init(path: "$[\(index)]", message: "a string or an integer, not \(element.typeName)"))
          }
        }
      }
      return problems.isEmpty ? .values(texts, lines: nil) : .problem(.validation(problems))
    case nil:
      return .problem(DomainError(.unsupportedMediaType, "Send text/plain or application/json."))
    }
  }

  /// The checked, distinct values of a reading.
  static func values(of reading: Reading) throws -> SavedListValues {
    switch reading {
    case .problem(let error): throw error
    case .values(let raw, let lines):
      return try SavedListValues.make(raw) { index in lines.map { "line \($0[index])" } ?? "$[\(index)]" }.get()
    }
  }

  /// The reading of a request: the sink's when the server streamed the body, else the body
  /// read now (a request handed to the service directly).
  static func reading(of request: Request) -> Reading {
    if let reading = request.upload as? Reading { return reading }
    let sink = SavedListUpload(contentType: request.header("content-type"))
    request.body.withUnsafeBytes { raw in sink.append(raw.bindMemory(to: UInt8.self)) }
    return sink.reading()
  }
}
