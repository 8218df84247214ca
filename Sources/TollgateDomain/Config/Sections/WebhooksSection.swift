import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
  /// `webhooks`: where events go, each id once, each URL http(s), each event known.
  mutating func webhooks(_ json: JSONValue?) -> [WebhookConfig] {
    var webhooks: [WebhookConfig] = []
    for (index, item) in array(json, at: "$.webhooks").enumerated() {
      let path = "$.webhooks[\(index)]"
      guard let object = object(item, at: path, required: ["id", "url", "events"]),
        let id = id(object["id"], at: "\(path).id")
      else { continue }
      if webhooks.contains(where: { $0.id == id }) { fail("\(path).id", "duplicate webhook id \(id)") }
      guard let text = string(object["url"], at: "\(path).url") else { continue }
      guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
        fail("\(path).url", "an http(s) URL")
        continue
      }
      var events: Set<WebhookEventType> = []
      for (position, name) in array(object["events"], at: "\(path).events").enumerated() {
        guard let name = string(name, at: "\(path).events[\(position)]") else { continue }
        if name == "*" {
          events.formUnion(WebhookEventType.allCases)
        } else if let type = WebhookEventType(rawValue: name) {
          events.insert(type)
        } else {
          fail(
            "\(path).events[\(position)]",
            "unknown event \(name) (expected * or one of \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")))"
          )
        }
      }
      if events.isEmpty { fail("\(path).events", "name at least one event") }
      webhooks.append(WebhookConfig(id: id, url: url, events: events))
    }
    return webhooks
  }
}
