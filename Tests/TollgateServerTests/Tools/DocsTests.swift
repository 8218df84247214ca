import Foundation
import Testing
import TollgateTestSupport

/// The documentation a newcomer reads stays short, linked and true to the tools.
@Suite("Documentation")
struct DocsTests {
  static func read(_ path: String) throws -> String {
    try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
  }

  /// The fenced block that follows a heading starting with `heading`.
  static func block(after heading: String, in text: String) -> String? {
    guard let start = text.range(of: "\n" + heading) else { return nil }
    guard let open = text.range(of: "```text\n", range: start.upperBound..<text.endIndex),
      let close = text.range(of: "\n```", range: open.upperBound..<text.endIndex)
    else { return nil }
    return String(text[open.upperBound..<close.lowerBound])
  }

  @Test("docs/cli.md is the tools' own --help, so each flag is described once")
  func commandLine() throws {
    let page = try Self.read("docs/cli.md")
    for (tool, heading) in [("tollgate", "## tollgate ("), ("tollgate-dev", "## tollgate-dev (")] {
      let binary = repositoryRoot.appendingPathComponent(".build/debug/\(tool)").path
      let (status, help, _) = try spawnCapturing([binary, "--help"])
      #expect(status == 0)
      let documented = try #require(Self.block(after: heading, in: page), "no block for \(tool)")
      #expect(
        documented == help.trimmingCharacters(in: .newlines),
        "docs/cli.md is stale for \(tool): run make cli-doc")
    }
  }

  @Test("the README stays a front page (at most 250 lines) and every relative link resolves")
  func linksResolve() throws {
    let readme = try Self.read("README.md")
    #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 250)
    let pages =
      ["README.md"]
      + (try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path))
      .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
    for page in pages {
      let text = try Self.read(page)
      let base = repositoryRoot.appendingPathComponent(page).deletingLastPathComponent()
      for link in text.matches(of: /\]\(([^)\s#]+)(#[^)\s]*)?\)/) {
        let target = String(link.1)
        if target.hasPrefix("http") { continue }
        let path = base.appendingPathComponent(target).standardizedFileURL.path
        #expect(FileManager.default.fileExists(atPath: path), "\(page) links to \(target), which does not exist")
      }
    }
  }
}
