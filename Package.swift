// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Tollgate",
  platforms: [.macOS(.v15), .iOS(.v15)],
  products: [
    .executable(name: "tollgate", targets: ["tollgate"]),
    .executable(name: "tollgate-dev", targets: ["tollgate-dev"]),
    .library(name: "TollgateServer", targets: ["TollgateServer"]),
    .library(name: "TollgateAPI", targets: ["TollgateAPI"]),
    .library(name: "Adapty", targets: ["Adapty"]),
    .library(name: "AdaptyUI", targets: ["AdaptyUI"]),
  ],
  targets: [
    // C libraries from Debian. libmicrohttpd needs a tiny shim: MHD_start_daemon and
    // MHD_get_daemon_info are variadic and cannot be called from Swift.
    .target(
      name: "CMicroHTTPD",
      linkerSettings: [.linkedLibrary("microhttpd")]
    ),
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    .systemLibrary(
      name: "CLibPQ",
      pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"])]
    ),
    .systemLibrary(
      name: "COpenSSL",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]
    ),
    // Argon2id for people's passwords (crypto_pwhash).
    .systemLibrary(
      name: "CSodium",
      pkgConfig: "libsodium",
      providers: [.apt(["libsodium-dev"])]
    ),
    .target(name: "TollgateAPI"),
    // The server in layers the compiler keeps (a reference upward does not build):
    // Support ← Domain ← Persistence ← Server, Support ← HTTP ← Server.
    // What every layer shares: errors in the API's terms, logging, time, crypto primitives.
    .target(name: "TollgateSupport", dependencies: ["TollgateAPI", "COpenSSL", "CSodium"]),
    // Pure rules and values: no I/O, no SQL, no HTTP.
    .target(name: "TollgateDomain", dependencies: ["TollgateAPI", "TollgateSupport", "COpenSSL"]),
    // SQL, records, repositories, the profile cache.
    .target(
      name: "TollgatePersistence",
      dependencies: ["TollgateAPI", "TollgateSupport", "TollgateDomain", "CSQLite", "CLibPQ"]
    ),
    // libmicrohttpd, requests and responses, the router and middleware: knows no feature.
    .target(name: "TollgateHTTP", dependencies: ["TollgateAPI", "TollgateSupport", "CMicroHTTPD"]),
    // Features (controllers, services, workers) and the composition root.
    .target(
      name: "TollgateServer",
      dependencies: [
        "TollgateAPI", "TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP", "COpenSSL",
      ],
      // The console's files and the common-password list, compiled into the binary by the
      // EmbedFiles plugin (`EmbeddedFiles`).
      exclude: ["Dashboard/Resources", "Features/People/Resources"],
      plugins: ["EmbedFiles"]
    ),
    // Writes a target's Resources folders as one Swift file of literals (run by EmbedFiles).
    .executableTarget(name: "tollgate-embed"),
    .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["tollgate-embed"]),
    .target(name: "Adapty", dependencies: ["TollgateAPI"]),
    // Paywalls designed in the console, drawn: its own module, as apps import it (`import AdaptyUI`).
    .target(name: "AdaptyUI", dependencies: ["Adapty", "TollgateAPI"]),
    // What both command-line tools share: options, failures, signals, report tables.
    .target(
      name: "TollgateCommandLine",
      dependencies: ["TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP", "TollgateServer"]),
    // Stand-ins for Apple (attribution API, StoreKit's signing chain): tests, bench and
    // tollgate-dev only. The shipped tollgate links none of it.
    .target(
      name: "TollgateDevTools",
      dependencies: [
        "TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP", "TollgateServer", "TollgateAPI",
        "COpenSSL",
      ]),
    .executableTarget(
      name: "tollgate",
      dependencies: [
        "TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP", "TollgateServer",
        "TollgateCommandLine",
      ]),
    .executableTarget(
      name: "tollgate-dev",
      dependencies: [
        "TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP", "TollgateServer",
        "TollgateDevTools", "TollgateCommandLine", "Adapty",
      ]),
    .executableTarget(
      name: "tollgate-bench",
      dependencies: [
        "TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP", "TollgateServer",
        "TollgateDevTools", "Adapty", "TollgateAPI",
      ],
      path: "Benchmarks/TollgateBench"),
    // Helpers shared by the test targets (child processes, ports); not a product.
    .target(
      name: "TollgateTestSupport",
      dependencies: [
        "Adapty", "TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP", "TollgateServer",
        "TollgateDevTools",
      ],
      path: "Tests/TollgateTestSupport"),
    // An app that buys and is killed before the server's answer arrives (the SIGKILL test).
    .executableTarget(
      name: "tollgate-purchase-child", dependencies: ["Adapty", "TollgateDevTools", "TollgateTestSupport"],
      path: "Tests/PurchaseChild"),
    .testTarget(name: "AdaptyTests", dependencies: ["Adapty", "AdaptyUI", "TollgateAPI"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "Adapty", "AdaptyUI", "TollgateAPI", "TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP",
        "TollgateServer", "TollgateDevTools", "TollgateTestSupport",
      ]),
    .testTarget(
      name: "TollgateServerTests",
      dependencies: [
        "TollgateSupport", "TollgateDomain", "TollgatePersistence", "TollgateHTTP", "TollgateServer", "TollgateAPI",
        "TollgateDevTools", "TollgateTestSupport",
      ],
      exclude: ["Golden/api-sequence.golden"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
