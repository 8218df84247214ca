/// Where a link opens: the system browser, or a browser sheet inside the app.
public enum AdaptyWebPresentation: String, Sendable, Hashable {
  case externalBrowser
  case inAppBrowser
}
