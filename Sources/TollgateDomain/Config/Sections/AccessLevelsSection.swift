import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
  /// `access_levels`: each level and the products that grant it.
  mutating func accessLevels(_ json: JSONValue?) -> [AccessLevelDefinition] {
    var accessLevels: [AccessLevelDefinition] = []
    for (index, item) in array(json, at: "$.access_levels").enumerated() {
      let path = "$.access_levels[\(index)]"
      guard let object = object(item, at: path, required: ["id", "products"]),
        let id = id(object["id"], at: "\(path).id")
      else { continue }
      if accessLevels.contains(where: { $0.id == id }) { fail("\(path).id", "duplicate access level id \(id)") }
      let products = array(object["products"], at: "\(path).products").enumerated().compactMap {
        string($1, at: "\(path).products[\($0)]")
      }
      if products.isEmpty { fail("\(path).products", "an access level needs at least one product") }
      accessLevels.append(AccessLevelDefinition(id: id, products: Set(products)))
    }
    return accessLevels
  }
}
