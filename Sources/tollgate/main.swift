import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

// Every command lives in CommandLineTool.swift; main only hands over, so no C callback or
// closure here is main-actor isolated by accident.
exit(await CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
