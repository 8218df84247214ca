// A test app for the SIGKILL test: activates the SDK against a live server, buys the first
// product of the `settings_upgrade` flow, and hangs once the server has the transaction but
// before its answer reaches the SDK. The test kills it there with SIGKILL.
//
// usage: tollgate-purchase-child BASE_URL PUBLIC_KEY STORAGE_DIR SIGNER_DIR
import Foundation
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport
import TollgateTestSupport

@testable import Adapty

/// Sends for real, then never answers a transaction send: the server has it, the app not.
struct AnswerWithholdingTransport: HTTPTransport {
  let inner: URLSessionTransport

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    let response = try await inner.send(request)
    guard request.path.hasSuffix("/transactions") else { return response }
    FileHandle.standardOutput.write(Data("server-has-it \(response.status)\n".utf8))
    while true { try await Task.sleep(for: .seconds(60)) }
  }
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let baseURL = URL(string: arguments[1]) else {
  FileHandle.standardError.write(
    Data("usage: tollgate-purchase-child BASE_URL PUBLIC_KEY STORAGE_DIR SIGNER_DIR\n".utf8))
  exit(2)
}
let store = FakeStoreKit(signer: try StoreKitSigner(directory: URL(fileURLWithPath: arguments[4])))
let builder = AdaptyConfiguration.builder(withAPIKey: arguments[2])
  .with(backendBaseUrl: baseURL)
  .with(storageDirectory: URL(fileURLWithPath: arguments[3]))
  .with(purchaseSource: store)
  .with(attributionTokenProvider: nil)
builder.dependencies.transport = AnswerWithholdingTransport(inner: URLSessionTransport(baseURL: baseURL))
/// The app's launch and purchase. In a function: in top-level code Swift prefers the
/// completion-handler form of `activate` (which also works: it starts activating at once).
func launchAndBuy(_ configuration: AdaptyConfiguration) async throws {
  try await Adapty.activate(with: configuration)
  let flow = try await Adapty.getFlow(placementId: "settings_upgrade")
  let products = try await Adapty.getPaywallProducts(paywall: flow)
  _ = try await Adapty.makePurchase(product: products[0])
}
try await launchAndBuy(builder.build())
FileHandle.standardError.write(Data("the purchase returned: the transport did not withhold the answer\n".utf8))
exit(1)
