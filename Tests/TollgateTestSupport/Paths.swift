import Foundation

/// The repository root: fixtures, docs, examples and the built executables.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Where the built executables are: `TOLLGATE_TEST_PRODUCTS` (`make test` builds in a folder of its
/// own, without debug information), else `.build/debug` as `swift build` leaves them.
public let builtProducts: URL = {
  guard let products = ProcessInfo.processInfo.environment["TOLLGATE_TEST_PRODUCTS"], !products.isEmpty else {
    return repositoryRoot.appendingPathComponent(".build/debug")
  }
  return URL(fileURLWithPath: products, relativeTo: repositoryRoot).standardizedFileURL
}()

/// A fresh directory under the system's temporary directory.
public func temporaryDirectory() -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("tollgate-tests-\(UUID().uuidString)")
  try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}
