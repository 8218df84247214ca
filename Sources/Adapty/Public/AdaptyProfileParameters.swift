/// Changes to send with `Adapty.updateProfile(params:)`.
public struct AdaptyProfileParameters: Sendable, Hashable {
  /// Attributes to set (a value) or remove (nil).
  public private(set) var customAttributes: [String: AdaptyCustomAttributeValue?] = [:]

  /// No changes.
  public init() {}

  /// Builds parameters, checking each attribute as it is added.
  public final class Builder {
    private var parameters = AdaptyProfileParameters()

    /// An empty builder.
    public init() {}

    /// Sets a string attribute (keys `[A-Za-z0-9._-]{1,30}`, values at most 50 characters).
    @discardableResult
    public func with(customAttribute value: String, forKey key: String) throws(AdaptyError) -> Builder {
      guard value.count <= 50 else {
        throw AdaptyError(.wrongParam, "Custom attribute \(key): strings are at most 50 characters.")
      }
      return try set(.string(value), forKey: key)
    }

    /// Sets a number attribute.
    @discardableResult
    public func with(customAttribute value: Double, forKey key: String) throws(AdaptyError) -> Builder {
      try set(.number(value), forKey: key)
    }

    /// Removes an attribute.
    @discardableResult
    public func withRemoved(customAttributeForKey key: String) throws(AdaptyError) -> Builder {
      try set(nil, forKey: key)
    }

    /// The parameters.
    public func build() -> AdaptyProfileParameters { parameters }

    private func set(_ value: AdaptyCustomAttributeValue?, forKey key: String) throws(AdaptyError) -> Builder {
      let allowed = key.unicodeScalars.allSatisfy {
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
      }
      guard (1...30).contains(key.count), allowed else {
        throw AdaptyError(.wrongParam, "Custom attribute keys are 1–30 characters of A–Z a–z 0–9 . _ - (got \(key)).")
      }
      parameters.customAttributes[key] = .some(value)
      return self
    }
  }
}
