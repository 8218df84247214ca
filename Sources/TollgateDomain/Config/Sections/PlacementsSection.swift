import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
  /// `placements`: each placement's targets (a flow or an experiment whose weights sum to 100) and
  /// default, over the flows and audiences declared; every variation's owner.
  mutating func placements(_ json: JSONValue?, flows: [String: CompiledConfig.Flow], declaredAudiences: Set<String>)
    -> (
      placements: [String: CompiledConfig.Placement], owners: [String: CompiledConfig.VariationOwner]
    )
  {
    var placements: [String: CompiledConfig.Placement] = [:]
    var owners: [String: CompiledConfig.VariationOwner] = [:]
    var declaredPlacements: Set<String> = []
    for (index, item) in array(json, at: "$.placements").enumerated() {
      let path = "$.placements[\(index)]"
      guard
        let object = object(item, at: path, required: ["id", "default"], optional: ["targets"]),
        let placementId = id(object["id"], at: "\(path).id")
      else { continue }
      if !declaredPlacements.insert(placementId).inserted {
        fail("\(path).id", "duplicate placement id \(placementId)")
      }

      func variation(_ flowJSON: JSONValue?, audience: String, weight: Int, at flowPath: String)
        -> CompiledConfig.Variation?
      {
        guard let flowId = id(flowJSON, at: flowPath) else { return nil }
        guard flows[flowId] != nil else {
          fail(flowPath, "unknown flow \(flowId)")
          return nil
        }
        let variationId = CompiledConfig.variationId(placement: placementId, audience: audience, flow: flowId)
        owners[variationId] = .init(placementId: placementId, audienceId: audience, flowId: flowId)
        return .init(id: variationId, flowId: flowId, weight: weight)
      }

      var targets: [CompiledConfig.Target] = []
      var seenAudiences: Set<String> = []
      for (targetIndex, targetJSON) in array(object["targets"], at: "\(path).targets").enumerated() {
        let targetPath = "\(path).targets[\(targetIndex)]"
        guard
          let target = self.object(
            targetJSON, at: targetPath, required: ["audience"], optional: ["flow", "experiment"]),
          let audienceId = id(target["audience"], at: "\(targetPath).audience")
        else { continue }
        if !declaredAudiences.contains(audienceId) {
          fail("\(targetPath).audience", "unknown audience \(audienceId)")
        }
        if !seenAudiences.insert(audienceId).inserted {
          fail("\(targetPath).audience", "audience \(audienceId) is targeted twice in this placement")
        }
        switch (target["flow"], target["experiment"]) {
        case (let flow?, nil):
          if let chosen = variation(flow, audience: audienceId, weight: 100, at: "\(targetPath).flow") {
            targets.append(.init(audienceId: audienceId, choice: .flow(chosen)))
          }
        case (nil, let experimentJSON?):
          let experimentPath = "\(targetPath).experiment"
          guard
            let experiment = self.object(
              experimentJSON, at: experimentPath, required: ["name", "variations"], optional: ["decision_metric"]),
            let name = string(experiment["name"], at: "\(experimentPath).name")
          else { continue }
          var metric = DecisionMetric.revenuePerViewer
          if let value = experiment["decision_metric"] {
            if case .string(let text) = value, let chosen = DecisionMetric(rawValue: text) {
              metric = chosen
            } else {
              fail(
                "\(experimentPath).decision_metric",
                "one of \(DecisionMetric.allCases.map(\.rawValue).joined(separator: ", "))")
            }
          }
          var variations: [CompiledConfig.Variation] = []
          var total = 0
          let items = array(experiment["variations"], at: "\(experimentPath).variations")
          if items.count < 2 { fail("\(experimentPath).variations", "an experiment needs at least 2 variations") }
          for (variationIndex, variationJSON) in items.enumerated() {
            let variationPath = "\(experimentPath).variations[\(variationIndex)]"
            guard
              let fields = self.object(variationJSON, at: variationPath, required: ["flow", "weight"])
            else { continue }
            guard case .int(let weight) = fields["weight"], (0...100).contains(weight) else {
              fail("\(variationPath).weight", "weights are whole percentages 0–100")
              continue
            }
            total += Int(weight)
            if let chosen = variation(
              fields["flow"], audience: audienceId, weight: Int(weight), at: "\(variationPath).flow")
            {
              if variations.contains(where: { $0.flowId == chosen.flowId }) {
                fail("\(variationPath).flow", "flow \(chosen.flowId) appears twice in this experiment")
              }
              variations.append(chosen)
            }
          }
          if total != 100 {
            fail("\(experimentPath).variations", "weights sum to \(total), not 100")
          }
          targets.append(
            .init(audienceId: audienceId, choice: .experiment(name: name, variations: variations, metric: metric)))
        default:
          fail(targetPath, "a target has exactly one of flow or experiment")
        }
      }
      guard
        let defaultVariation = variation(
          object["default"], audience: CompiledConfig.defaultAudienceId, weight: 100,
          at: "\(path).default")
      else { continue }
      placements[placementId] = .init(id: placementId, targets: targets, defaultVariation: defaultVariation)
    }
    return (placements, owners)
  }
}
