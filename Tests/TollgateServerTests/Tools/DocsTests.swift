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
      let binary = builtProducts.appendingPathComponent(tool).path
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

  @Test("every source file docs/ARCHITECTURE.md names by path exists (its walks and layers stay true)")
  func architectureNamesRealFiles() throws {
    let page = try Self.read("docs/ARCHITECTURE.md")
    var files: [String] = []
    for folder in ["Sources", "Tests", "scripts", "Plugins"] {
      let root = repositoryRoot.appendingPathComponent(folder)
      let walker = FileManager.default.enumerator(atPath: root.path)
      while let path = walker?.nextObject() as? String { files.append("/\(folder)/\(path)") }
    }
    var named = 0
    for match in page.matches(of: /`([A-Za-z]+(?:\/[A-Za-z+\-]+)*\/[A-Z][A-Za-z+]*)(?:\.[a-z]+)?[`.']/) {
      let path = String(match.1)
      named += 1
      #expect(
        files.contains { $0.hasSuffix("/\(path).swift") || $0.hasSuffix("/\(path).sh") || $0.hasSuffix("/\(path)") },
        "docs/ARCHITECTURE.md names \(path), which is no file or folder")
    }
    #expect(named > 40, "the page names the files its walks cross")
  }

  @Test("make bench-scale runs PostgreSQL with the settings docs/operations.md recommends, each of them")
  func benchSettingsAreTheRecommendedOnes() throws {
    func names(_ text: String) -> Set<String> {
      Set(
        text.split(separator: "\n").compactMap { line in
          let setting = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
          guard let equals = setting.firstIndex(of: "=") else { return nil }
          let name = setting[..<equals].trimmingCharacters(in: .whitespaces)
          return name.isEmpty ? nil : name
        })
    }
    let page = try Self.read("docs/operations.md")
    // The settings block of "How big, how many": the ini block that starts with shared_buffers.
    let opening = try #require(page.range(of: "```ini\nshared_buffers"))
    let body = page.index(opening.lowerBound, offsetBy: "```ini\n".count)
    let end = try #require(page.range(of: "\n```", range: body..<page.endIndex))
    let recommended = names(String(page[body..<end.lowerBound]))
    let used = names(try Self.read("Benchmarks/scripts/postgresql-scale.conf"))
    // max_connections depends on the number of instances; the test cluster sets it on its command line.
    #expect(
      used == recommended.subtracting(["max_connections"]), "docs: \(recommended.sorted()), bench: \(used.sorted())")
  }
}
