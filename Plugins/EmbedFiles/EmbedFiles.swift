import Foundation
import PackagePlugin

/// Compiles a target's `Resources` folders (the console's files, the common-password list) into
/// one Swift file of string literals, `EmbeddedFiles`. SwiftPM's own `.embedInCode` writes byte
/// array literals, which took the compiler 31 s (debug) and 20 s (release) for these 340 KB; a
/// string literal takes a fraction of a second.
@main
struct EmbedFiles: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let root = target.directoryURL
    let files =
      FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])?
      .compactMap { $0 as? URL }
      .filter { $0.deletingLastPathComponent().lastPathComponent == "Resources" }
      .sorted { $0.path < $1.path } ?? []
    let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
    return [
      .buildCommand(
        displayName: "Embedding \(files.count) files of \(target.name)",
        executable: try context.tool(named: "tollgate-embed").url,
        arguments: [output.path] + files.map(\.path), inputFiles: files, outputFiles: [output])
    ]
  }
}
