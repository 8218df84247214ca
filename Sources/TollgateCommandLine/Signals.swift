import Dispatch
import Foundation

/// Waits for a termination signal without blocking any thread.
public enum Signals {
  /// Returns the first of `signals` delivered to the process.
  public static func next(_ signals: [Int32]) async -> Int32 {
    let (stream, continuation) = AsyncStream<Int32>.makeStream()
    let sources = signals.map { number -> any DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { continuation.yield(number) }
      source.resume()
      return source
    }
    var received: Int32 = SIGTERM
    for await number in stream {
      received = number
      break
    }
    sources.forEach { $0.cancel() }
    return received
  }
}
