// Interface stubs of the SwiftUI declarations the seed samples use, written from Apple's
// documentation. Nothing here runs: every body is `fatalError()`.

/// Mirrors https://developer.apple.com/documentation/swiftui/view
/// (`@MainActor @preconcurrency protocol View`, iOS 13.0+).
@available(iOS 13.0, macOS 10.15, *)
@MainActor
@preconcurrency
public protocol View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/body-8kl5o
  /// (`associatedtype Body : View`).
  associatedtype Body: View
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/body-swift.property
  /// (`@ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }`).
  @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// Mirrors https://developer.apple.com/documentation/swift/never (SwiftUI's `View`
/// conformance of `Never`, the body of primitive views).
@available(iOS 13.0, macOS 10.15, *)
extension Never: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/viewbuilder
/// (`@resultBuilder struct ViewBuilder`); only the one-view block the samples need.
@available(iOS 13.0, macOS 10.15, *)
@resultBuilder
public struct ViewBuilder {
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)
  public static func buildBlock<Content: View>(_ content: Content) -> Content { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/text (`@frozen struct Text`).
@available(iOS 13.0, macOS 10.15, *)
public struct Text: View, Equatable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/text/init(_:)-9d1g4
  /// (`init<S>(_ content: S) where S : StringProtocol`).
  public init<S: StringProtocol>(_ content: S) { fatalError() }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, *)
extension View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/task(name:priority:file:line:_:)
  /// (`nonisolated func task(name:priority:file:line:_ action: sending @escaping @isolated(any)
  /// () async -> Void) -> some View`, iOS 15.0+).
  @available(iOS 15.0, macOS 12.0, *)
  public nonisolated func task(
    name: String? = nil, priority: TaskPriority = .userInitiated, file: String = #fileID, line: Int = #line,
    _ action: sending @escaping @isolated(any) () async -> Void
  ) -> some View { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/environmentvalues
/// (`struct EnvironmentValues`); StoreKit adds `displayStoreKitMessage` to it.
@available(iOS 13.0, macOS 10.15, *)
public struct EnvironmentValues {}

/// Mirrors https://developer.apple.com/documentation/swiftui/environment
/// (`@frozen @propertyWrapper struct Environment<Value>`).
@available(iOS 13.0, macOS 10.15, *)
@propertyWrapper
public struct Environment<Value> {
  /// Mirrors https://developer.apple.com/documentation/swiftui/environment/init(_:)-8slkf
  /// (`init(_ keyPath: KeyPath<EnvironmentValues, Value>)`).
  public init(_ keyPath: KeyPath<EnvironmentValues, Value>) { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/environment/wrappedvalue
  /// (`var wrappedValue: Value { get }`).
  public var wrappedValue: Value { fatalError() }
}
