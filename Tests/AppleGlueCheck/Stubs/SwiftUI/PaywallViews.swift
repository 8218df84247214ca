// Interface stubs of the SwiftUI declarations `AdaptyPaywallView`, `AdaptyPaywallController`
// and the `.paywall(isPresented:…)` modifier use, written from Apple's documentation. Nothing
// here runs: every body is `fatalError()`.
import Foundation
import UIKit

// MARK: - View builders

@available(iOS 13.0, macOS 10.15, *)
extension ViewBuilder {
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock()
  public static func buildBlock() -> EmptyView { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)-4ejf2
  /// (`static func buildBlock<each Content>(_ content: repeat each Content) -> TupleView<(repeat
  /// each Content)> where repeat each Content : View`).
  @_disfavoredOverload
  public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)>
  { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewbuilder/buildif(_:)
  /// (`static func buildIf<Content>(_ content: Content?) -> Content? where Content : View`).
  public static func buildIf<Content: View>(_ content: Content?) -> Content? { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(first:)
  public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent)
    -> _ConditionalContent<TrueContent, FalseContent>
  { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(second:)
  public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent)
    -> _ConditionalContent<TrueContent, FalseContent>
  { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/tupleview (`@frozen struct TupleView<T>`).
@available(iOS 13.0, macOS 10.15, *)
public struct TupleView<T>: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/_conditionalcontent
/// (`@frozen struct _ConditionalContent<TrueContent, FalseContent>`).
@available(iOS 13.0, macOS 10.15, *)
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swift/optional (SwiftUI's
/// `extension Optional : View where Wrapped : View`).
@available(iOS 13.0, macOS 10.15, *)
extension Optional: View where Wrapped: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

// MARK: - Views

/// Mirrors https://developer.apple.com/documentation/swiftui/anyview (`@frozen struct AnyView`).
@available(iOS 13.0, macOS 10.15, *)
public struct AnyView: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/anyview/init(_:)
  /// (`init<V>(_ view: V) where V : View`).
  public init<V: View>(_ view: V) { fatalError() }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/emptyview (`@frozen struct EmptyView`).
@available(iOS 13.0, macOS 10.15, *)
public struct EmptyView: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/emptyview/init()
  public init() { fatalError() }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/spacer (`@frozen struct Spacer`).
@available(iOS 13.0, macOS 10.15, *)
public struct Spacer: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/spacer/init(minlength:)
  public init(minLength: CGFloat? = nil) { fatalError() }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/vstack
/// (`@frozen struct VStack<Content> where Content : View`).
@available(iOS 13.0, macOS 10.15, *)
public struct VStack<Content: View>: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/vstack/init(alignment:spacing:content:)
  public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
    fatalError()
  }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/hstack
/// (`@frozen struct HStack<Content> where Content : View`).
@available(iOS 13.0, macOS 10.15, *)
public struct HStack<Content: View>: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/hstack/init(alignment:spacing:content:)
  public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
    fatalError()
  }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/zstack
/// (`@frozen struct ZStack<Content> where Content : View`).
@available(iOS 13.0, macOS 10.15, *)
public struct ZStack<Content: View>: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/zstack/init(alignment:content:)
  public init(alignment: Alignment = .center, @ViewBuilder content: () -> Content) { fatalError() }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/scrollview
/// (`struct ScrollView<Content> where Content : View`).
@available(iOS 13.0, macOS 10.15, *)
public struct ScrollView<Content: View>: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/scrollview/init(_:showsindicators:content:)
  public init(_ axes: Axis.Set = .vertical, showsIndicators: Bool = true, @ViewBuilder content: () -> Content) {
    fatalError()
  }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/foreach
/// (`struct ForEach<Data, ID, Content> where Data : RandomAccessCollection, ID : Hashable`).
@available(iOS 13.0, macOS 10.15, *)
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content> {}

@available(iOS 13.0, macOS 10.15, *)
extension ForEach: View where Content: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/foreach/init(_:id:content:)
  /// (`init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping
  /// (Data.Element) -> Content)`).
  public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content) {
    fatalError()
  }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/button
/// (`struct Button<Label> where Label : View`).
@available(iOS 13.0, macOS 10.15, *)
public struct Button<Label: View>: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/button/init(action:label:)
  /// (`init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label)`).
  public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) { fatalError() }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/image (`@frozen struct Image`).
@available(iOS 13.0, macOS 10.15, *)
public struct Image: View, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/image/init(systemname:)
  public init(systemName: String) { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/image/init(uiimage:)
  public init(uiImage: UIImage) { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/image/resizable(capinsets:resizingmode:)
  public func resizable(capInsets: EdgeInsets = EdgeInsets(), resizingMode: Image.ResizingMode = .stretch) -> Image {
    fatalError()
  }
  /// Mirrors https://developer.apple.com/documentation/swiftui/image/resizingmode
  public enum ResizingMode: Sendable {
    case tile
    case stretch
  }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/color (`@frozen struct Color`).
@available(iOS 13.0, macOS 10.15, *)
public struct Color: View, Hashable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/color/rgbcolorspace
  public enum RGBColorSpace: Sendable {
    case sRGB
    case sRGBLinear
    case displayP3
  }
  /// Mirrors https://developer.apple.com/documentation/swiftui/color/init(_:red:green:blue:opacity:)
  public init(_ colorSpace: Color.RGBColorSpace = .sRGB, red: Double, green: Double, blue: Double, opacity: Double = 1)
  { fatalError() }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/font (`@frozen struct Font`).
@available(iOS 13.0, macOS 10.15, *)
public struct Font: Hashable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/font/system(size:weight:design:)
  public static func system(size: CGFloat, weight: Font.Weight = .regular, design: Font.Design = .default) -> Font {
    fatalError()
  }
  /// Mirrors https://developer.apple.com/documentation/swiftui/font/weight
  public struct Weight: Hashable, Sendable {
    /// Mirrors https://developer.apple.com/documentation/swiftui/font/weight/regular
    public static let regular = Weight()
    /// Mirrors https://developer.apple.com/documentation/swiftui/font/weight/medium
    public static let medium = Weight()
    /// Mirrors https://developer.apple.com/documentation/swiftui/font/weight/semibold
    public static let semibold = Weight()
    /// Mirrors https://developer.apple.com/documentation/swiftui/font/weight/bold
    public static let bold = Weight()
  }
  /// Mirrors https://developer.apple.com/documentation/swiftui/font/design
  public enum Design: Hashable, Sendable {
    case `default`
    case serif
    case rounded
    case monospaced
  }
}

@available(iOS 13.0, macOS 10.15, *)
extension Text {
  /// Mirrors https://developer.apple.com/documentation/swiftui/text/font(_:)
  public func font(_ font: Font?) -> Text { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/text/foregroundcolor(_:)
  public func foregroundColor(_ color: Color?) -> Text { fatalError() }
}

// MARK: - Layout values

/// Mirrors https://developer.apple.com/documentation/swiftui/alignment (`@frozen struct Alignment`).
@available(iOS 13.0, macOS 10.15, *)
public struct Alignment: Equatable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/alignment/center
  public static let center = Alignment()
  /// Mirrors https://developer.apple.com/documentation/swiftui/alignment/topleading
  public static let topLeading = Alignment()
  /// Mirrors https://developer.apple.com/documentation/swiftui/alignment/toptrailing
  public static let topTrailing = Alignment()
}

/// Mirrors https://developer.apple.com/documentation/swiftui/horizontalalignment
@available(iOS 13.0, macOS 10.15, *)
public struct HorizontalAlignment: Equatable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/horizontalalignment/leading
  public static let leading = HorizontalAlignment()
  /// Mirrors https://developer.apple.com/documentation/swiftui/horizontalalignment/center
  public static let center = HorizontalAlignment()
}

/// Mirrors https://developer.apple.com/documentation/swiftui/verticalalignment
@available(iOS 13.0, macOS 10.15, *)
public struct VerticalAlignment: Equatable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/verticalalignment/center
  public static let center = VerticalAlignment()
}

/// Mirrors https://developer.apple.com/documentation/swiftui/axis (`@frozen enum Axis`).
@available(iOS 13.0, macOS 10.15, *)
public enum Axis: Sendable {
  case horizontal
  case vertical
  /// Mirrors https://developer.apple.com/documentation/swiftui/axis/set
  public struct Set: OptionSet, Sendable {
    public let rawValue: Int8
    public init(rawValue: Int8) { self.rawValue = rawValue }
    /// Mirrors https://developer.apple.com/documentation/swiftui/axis/set/vertical
    public static let vertical = Set(rawValue: 2)
  }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/edgeinsets (`@frozen struct EdgeInsets`).
@available(iOS 13.0, macOS 10.15, *)
public struct EdgeInsets: Equatable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/edgeinsets/init()
  public init() { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/edge (`@frozen enum Edge`).
@available(iOS 13.0, macOS 10.15, *)
public enum Edge: Sendable {
  case top, leading, bottom, trailing
  /// Mirrors https://developer.apple.com/documentation/swiftui/edge/set
  public struct Set: OptionSet, Sendable {
    public let rawValue: Int8
    public init(rawValue: Int8) { self.rawValue = rawValue }
    /// Mirrors https://developer.apple.com/documentation/swiftui/edge/set/all
    public static let all = Set(rawValue: 15)
  }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/safearearegions
/// (`@frozen struct SafeAreaRegions`, iOS 14.0+).
@available(iOS 14.0, macOS 11.0, *)
public struct SafeAreaRegions: OptionSet, Sendable {
  public let rawValue: UInt
  public init(rawValue: UInt) { self.rawValue = rawValue }
  /// Mirrors https://developer.apple.com/documentation/swiftui/safearearegions/all
  public static let all = SafeAreaRegions(rawValue: 3)
}

// MARK: - Modifiers

/// What the stubbed modifiers claim to return (an opaque `some View` needs a concrete type).
struct Unimplemented: View {
  nonisolated init() { fatalError() }
  typealias Body = Never
  var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, *)
extension View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/font(_:)
  public nonisolated func font(_ font: Font?) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/foregroundcolor(_:)
  public nonisolated func foregroundColor(_ color: Color?) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/padding(_:)-68shk
  /// (`func padding(_ length: CGFloat) -> some View`).
  public nonisolated func padding(_ length: CGFloat) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/frame(width:height:alignment:)
  public nonisolated func frame(width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center)
    -> some View
  { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/frame(minwidth:idealwidth:maxwidth:minheight:idealheight:maxheight:alignment:)
  public nonisolated func frame(
    minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: CGFloat? = nil,
    idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center
  ) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/background(_:alignment:)
  /// (`func background<Background>(_ background: Background, alignment: Alignment = .center) ->
  /// some View where Background : View`).
  public nonisolated func background<Background: View>(_ background: Background, alignment: Alignment = .center)
    -> some View
  { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/cornerradius(_:antialiased:)
  public nonisolated func cornerRadius(_ radius: CGFloat, antialiased: Bool = true) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/clipped(antialiased:)
  public nonisolated func clipped(antialiased: Bool = false) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/scaledtofill()
  public nonisolated func scaledToFill() -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/ignoressafearea(_:edges:)
  /// (iOS 14.0+).
  @available(iOS 14.0, macOS 11.0, *)
  public nonisolated func ignoresSafeArea(_ regions: SafeAreaRegions = .all, edges: Edge.Set = .all) -> some View {
    Unimplemented()
  }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/disabled(_:)
  public nonisolated func disabled(_ disabled: Bool) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/onappear(perform:)
  public nonisolated func onAppear(perform action: (() -> Void)? = nil) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/ondisappear(perform:)
  public nonisolated func onDisappear(perform action: (() -> Void)? = nil) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/modifier(_:)
  /// (`func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T>`).
  public nonisolated func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/sheet(ispresented:ondismiss:content:)
  public nonisolated func sheet<Content: View>(
    isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content
  ) -> some View { Unimplemented() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/fullscreencover(ispresented:ondismiss:content:)
  /// (iOS 14.0+, not macOS).
  @available(iOS 14.0, *)
  @available(macOS, unavailable)
  public nonisolated func fullScreenCover<Content: View>(
    isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content
  ) -> some View { Unimplemented() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/viewmodifier
/// (`@MainActor @preconcurrency protocol ViewModifier`).
@available(iOS 13.0, macOS 10.15, *)
@MainActor
@preconcurrency
public protocol ViewModifier {
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewmodifier/body-swift.associatedtype
  associatedtype Body: View
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewmodifier/content
  typealias Content = _ViewModifier_Content<Self>
  /// Mirrors https://developer.apple.com/documentation/swiftui/viewmodifier/body(content:)
  @ViewBuilder func body(content: Self.Content) -> Self.Body
}

/// Mirrors https://developer.apple.com/documentation/swiftui/_viewmodifier_content
/// (`struct _ViewModifier_Content<Modifier> where Modifier : ViewModifier`).
@available(iOS 13.0, macOS 10.15, *)
public struct _ViewModifier_Content<Modifier: ViewModifier>: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/modifiedcontent
/// (`@frozen struct ModifiedContent<Content, Modifier>`; a `View` when Content is a View and
/// Modifier a ViewModifier).
@available(iOS 13.0, macOS 10.15, *)
public struct ModifiedContent<Content, Modifier> {}

@available(iOS 13.0, macOS 10.15, *)
extension ModifiedContent: View where Content: View, Modifier: ViewModifier {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

// MARK: - State

/// Mirrors https://developer.apple.com/documentation/swiftui/binding
/// (`@frozen @propertyWrapper @dynamicMemberLookup struct Binding<Value>`).
@available(iOS 13.0, macOS 10.15, *)
@propertyWrapper
public struct Binding<Value> {
  /// Mirrors https://developer.apple.com/documentation/swiftui/binding/wrappedvalue
  /// (`var wrappedValue: Value { get nonmutating set }`).
  public var wrappedValue: Value {
    get { fatalError() }
    nonmutating set { fatalError() }
  }
  /// Mirrors https://developer.apple.com/documentation/swiftui/binding/projectedvalue
  public var projectedValue: Binding<Value> { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/binding/init(projectedvalue:)
  public init(projectedValue: Binding<Value>) { fatalError() }
}

@available(iOS 13.0, macOS 10.15, *)
extension Binding: @unchecked Sendable {}

/// Mirrors https://developer.apple.com/documentation/swiftui/state
/// (`@frozen @propertyWrapper struct State<Value>`).
@available(iOS 13.0, macOS 10.15, *)
@propertyWrapper
public struct State<Value> {
  /// Mirrors https://developer.apple.com/documentation/swiftui/state/init(wrappedvalue:)
  public init(wrappedValue value: Value) { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/state/wrappedvalue
  /// (`var wrappedValue: Value { get nonmutating set }`).
  public var wrappedValue: Value {
    get { fatalError() }
    nonmutating set { fatalError() }
  }
  /// Mirrors https://developer.apple.com/documentation/swiftui/state/projectedvalue
  public var projectedValue: Binding<Value> { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/colorscheme (`enum ColorScheme`).
@available(iOS 13.0, macOS 10.15, *)
public enum ColorScheme: Hashable, Sendable {
  case light
  case dark
}

@available(iOS 13.0, macOS 10.15, *)
extension EnvironmentValues {
  /// Mirrors https://developer.apple.com/documentation/swiftui/environmentvalues/colorscheme
  /// (`var colorScheme: ColorScheme { get set }`).
  public var colorScheme: ColorScheme {
    get { fatalError() }
    set { fatalError() }
  }
}

// MARK: - UIKit hosting

/// Mirrors https://developer.apple.com/documentation/swiftui/uihostingcontroller
/// (`@MainActor @preconcurrency open class UIHostingController<Content> : UIViewController
/// where Content : View`).
@available(iOS 13.0, *)
@MainActor
@preconcurrency
open class UIHostingController<Content: View>: UIViewController {
  /// Mirrors https://developer.apple.com/documentation/swiftui/uihostingcontroller/init(rootview:)
  public init(rootView: Content) { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/uihostingcontroller/init(coder:)
  /// (`required dynamic init?(coder aDecoder: NSCoder)`).
  public required init?(coder aDecoder: NSCoder) { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/uihostingcontroller/rootview
  public var rootView: Content {
    get { fatalError() }
    set { fatalError() }
  }
}

// MARK: - Values of the app's own assets and the SwiftUI presentation of AdaptyUI

/// Mirrors https://developer.apple.com/documentation/swiftui/gradient (`@frozen struct Gradient`).
@available(iOS 13.0, macOS 10.15, *)
public struct Gradient: Hashable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/gradient/init(colors:)
  public init(colors: [Color]) { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/unitpoint (`@frozen struct UnitPoint`).
@available(iOS 13.0, macOS 10.15, *)
public struct UnitPoint: Hashable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/unitpoint/top
  public static let top = UnitPoint()
  /// Mirrors https://developer.apple.com/documentation/swiftui/unitpoint/bottom
  public static let bottom = UnitPoint()
  /// Mirrors https://developer.apple.com/documentation/swiftui/unitpoint/center
  public static let center = UnitPoint()
  init() {}
}

/// Mirrors https://developer.apple.com/documentation/swiftui/angle (`@frozen struct Angle`).
@available(iOS 13.0, macOS 10.15, *)
public struct Angle: Hashable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/swiftui/angle/zero
  public static let zero = Angle()
  init() {}
}

/// Mirrors https://developer.apple.com/documentation/swiftui/progressview
/// (`struct ProgressView<Label, CurrentValueLabel> where Label : View, CurrentValueLabel : View`,
/// iOS 14.0+); only the indeterminate spinner.
@available(iOS 14.0, macOS 11.0, *)
public struct ProgressView: View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/progressview/init()
  public init() { fatalError() }
  public typealias Body = Never
  public var body: Never { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/alert (`struct Alert`, iOS 13.0+).
@available(iOS 13.0, macOS 10.15, *)
public struct Alert {
  /// Mirrors https://developer.apple.com/documentation/swiftui/alert/init(title:message:dismissbutton:)
  public init(title: Text, message: Text? = nil, dismissButton: Alert.Button? = nil) { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/swiftui/alert/button
  public struct Button {
    /// Mirrors https://developer.apple.com/documentation/swiftui/alert/button/default(_:action:)
    public static func `default`(_ label: Text, action: (() -> Void)? = {}) -> Alert.Button { fatalError() }
  }
}

@available(iOS 13.0, macOS 10.15, *)
extension View {
  /// Mirrors https://developer.apple.com/documentation/swiftui/view/alert(item:content:)
  /// (`func alert<Item>(item: Binding<Item?>, content: (Item) -> Alert) -> some View where Item : Identifiable`).
  public nonisolated func alert<Item: Identifiable>(item: Binding<Item?>, content: @escaping (Item) -> Alert)
    -> some View
  { Unimplemented() }
}

@available(iOS 13.0, macOS 10.15, *)
extension Binding {
  /// Mirrors https://developer.apple.com/documentation/swiftui/binding/constant(_:)
  /// (`static func constant(_ value: Value) -> Binding<Value>`).
  public static func constant(_ value: Value) -> Binding<Value> { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/swiftui/dismissaction
/// (`@MainActor @preconcurrency struct DismissAction`, iOS 15.0+).
@available(iOS 15.0, macOS 12.0, *)
@MainActor
@preconcurrency
public struct DismissAction {
  /// Mirrors https://developer.apple.com/documentation/swiftui/dismissaction/callasfunction()
  public func callAsFunction() { fatalError() }
}

@available(iOS 15.0, macOS 12.0, *)
extension EnvironmentValues {
  /// Mirrors https://developer.apple.com/documentation/swiftui/environmentvalues/dismiss
  /// (`var dismiss: DismissAction { get }`, iOS 15.0+).
  public var dismiss: DismissAction { fatalError() }
}
