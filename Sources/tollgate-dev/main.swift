import Foundation

// Every command lives in DevCommandLine.swift; main only hands over, so no C callback or
// closure here is main-actor isolated by accident.
exit(await DevCommandLine.run(Array(CommandLine.arguments.dropFirst())))
