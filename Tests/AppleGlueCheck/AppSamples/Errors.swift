// Handling AdaptyUI's errors by case and code.
import Adapty
import AdaptyUI
import Foundation

func describe(_ error: AdaptyUIError) -> String {
  switch error {
  case .platformNotSupported: return "not supported"
  case .adaptyNotActivated: return "activate Adapty first"
  case .adaptyUINotActivated: return "activate AdaptyUI first"
  case .activateOnce: return "activated twice"
  case .unsupportedTemplate(let description): return description
  case .wrongComponentType(let description): return description
  case .webKit(let underlying): return "\(underlying)"
  }
}

func domainAndCode(_ error: AdaptyUIError) -> (String, Int) {
  (AdaptyUIError.errorDomain, error.errorCode)
}
