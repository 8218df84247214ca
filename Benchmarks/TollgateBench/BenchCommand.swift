import Foundation

enum BenchCommand {
  static func run(_ arguments: [String]) async -> Int32 {
    var options: [String: String] = [:]
    var index = 1
    while index + 1 < arguments.count {
      options[arguments[index]] = arguments[index + 1]
      index += 2
    }
    do {
      switch arguments.first {
      case "seed":
        try Seed.run(
          database: options["--database"] ?? "bench.sqlite", profiles: Int(options["--profiles"] ?? "") ?? 100_000,
          out: URL(fileURLWithPath: options["--out"] ?? "."), listEntries: Int(options["--list-entries"] ?? "") ?? 0)
      case "attribution":
        try await AttributionIngestion.run(
          base: options["--url"] ?? "http://127.0.0.1:8080", key: options["--key"] ?? "",
          tokens: Int(options["--tokens"] ?? "") ?? 2_000)
      case "stats":
        try StatsQuery.run(
          database: options["--database"] ?? "stats.sqlite",
          config: options["--config"] ?? "examples/sample-config.json",
          impressions: Int(options["--impressions"] ?? "") ?? 1_000_000,
          purchases: Int(options["--purchases"] ?? "") ?? 50_000)
      case "subscriptions":
        try SubscriptionSeries.run(
          database: options["--database"] ?? "subscriptions.sqlite",
          subscriptions: Int(options["--subscriptions"] ?? "") ?? 100_000,
          streams: Int(options["--streams"] ?? "") ?? 1)
      case "analytics":
        try AnalyticsAtScale.run(
          database: options["--database"] ?? "analytics.sqlite",
          profiles: Int(options["--profiles"] ?? "") ?? 1_000_000,
          subscriptions: Int(options["--subscriptions"] ?? "") ?? 100_000, existing: options["--app"])
      case "scale-seed":
        try ScaleSeed.run(
          database: options["--database"] ?? "", profiles: Int(options["--profiles"] ?? "") ?? 10_000_000,
          out: URL(fileURLWithPath: options["--out"] ?? "."),
          webhookURL: options["--webhook-url"] ?? "http://127.0.0.1:9/tollgate")
      case "scale-day":
        try ScaleDay.run(
          profiles: Int(options["--profiles"] ?? "") ?? 10_000_000,
          dailyUsers: Int(options["--daily-users"] ?? "") ?? 1_000_000,
          sample: Int(options["--sample"] ?? "") ?? 40, threads: Int(options["--threads"] ?? "") ?? 2,
          app: options["--app"] ?? "", out: URL(fileURLWithPath: options["--out"] ?? "."),
          storeKit: URL(fileURLWithPath: options["--storekit"] ?? "storekit"))
      case "import":
        try await ImportAtScale.run(
          database: options["--database"] ?? "import.sqlite",
          profiles: Int(options["--profiles"] ?? "") ?? 1_000_000,
          histories: Int(options["--histories"] ?? "") ?? 200_000, lanes: Int(options["--lanes"] ?? "") ?? 2)
      case "montecarlo":
        MonteCarlo.run()
      case "sdk":
        try await FirstLaunch.run(config: options["--config"] ?? "examples/sample-config.json")
      default:
        FileHandle.standardError.write(
          Data(
            "usage: tollgate-bench seed|attribution|stats|subscriptions|analytics|import|scale-seed|scale-day|montecarlo|sdk [options]\n"
              .utf8))
        return 2
      }
      return 0
    } catch {
      FileHandle.standardError.write(Data("tollgate-bench: \(error)\n".utf8))
      return 1
    }
  }
}

/// Writes a line to standard output at once.
func emit(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
