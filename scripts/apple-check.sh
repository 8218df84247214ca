#!/usr/bin/env bash
# Type-checks the SDK's Apple-only glue (Sources/Adapty/Platform, Sources/AdaptyUI/Platform) and the seed pages'
# Apple-only samples against the interface stubs in Tests/AppleGlueCheck.
#   scripts/apple-check.sh           the check (warnings are errors)
#   scripts/apple-check.sh --prove   shows the check has teeth: plants a type error right after
#                                    the Apple imports of each glue file, and changes public
#                                    signatures the app samples (Tests/AppleGlueCheck/AppSamples,
#                                    written from Adapty's documentation) rely on; each must fail
set -euo pipefail
cd "$(dirname "$0")/.."
swift="${SWIFT:-swift}"
check() { (cd Tests/AppleGlueCheck && "$swift" build "$@"); }

if [ "${1:-}" != "--prove" ]; then
  check
  exit 0
fi

check >/dev/null
status=0
for file in Sources/Adapty/Platform/*.swift Sources/AdaptyUI/Platform/*.swift; do
  line=$(grep -nE '^\s*import (AdServices|StoreKit|SwiftUI|UIKit)$' "$file" | tail -1 | cut -d: -f1)
  if [ -z "$line" ]; then
    echo "FAIL $file: no Apple import to plant after"
    status=1
    continue
  fi
  backup=$(mktemp)
  cp "$file" "$backup"
  trap 'cp "$backup" "$file"' EXIT
  sed -i "${line}a\\let plantedTypeError: Int = \"not an Int\"" "$file"
  if check >/dev/null 2>&1; then
    echo "FAIL $file: a planted type error after line $line compiled"
    status=1
  else
    echo "ok   $file: the planted type error after line $line fails the check"
  fi
  cp "$backup" "$file"
  trap - EXIT
  rm -f "$backup"
done
# A public signature changed the way a refactoring might: app code written for Adapty stops
# compiling. Each line: file, the text, what it becomes.
while IFS='|' read -r file from to; do
  [ -z "$file" ] && continue
  backup=$(mktemp)
  cp "$file" "$backup"
  trap 'cp "$backup" "$file"' EXIT
  if ! python3 - "$file" "$from" "$to" <<'PY'
import sys
path, old, new = (a.replace("\\n", "\n") for a in sys.argv[1:])
text = open(path).read()
if old not in text:
    sys.exit(1)
open(path, "w").write(text.replace(old, new, 1))
PY
  then
    echo "FAIL $file: '$from' is not there to change"
    status=1
  else
    if check >/dev/null 2>&1; then
      echo "FAIL $file: '$from' → '$to' compiled"
      status=1
    else
      echo "ok   $file: '$from' → '$to' fails the app samples"
    fi
  fi
  cp "$backup" "$file"
  trap - EXIT
  rm -f "$backup"
done <<'PLANTS'
Sources/AdaptyUI/Platform/AdaptyPaywallController.swift|didFailLoadingProductsWith error: AdaptyError)|didFailLoadingProducts error: AdaptyError)
Sources/AdaptyUI/Platform/AdaptyPaywallController.swift|public var paywallVariationId|public var variationId
Sources/AdaptyUI/Platform/AdaptyPaywallViewModifier.swift|      showAlertItem: Binding<AlertItem?>,|      alertItem: Binding<AlertItem?>,
Sources/AdaptyUI/Platform/AdaptyPaywallView.swift|public init(\n      paywallConfiguration:|init(\n      paywallConfiguration:
Sources/AdaptyUI/AdaptyUI.swift|observerModeResolver: AdaptyObserverModeResolver? = nil, tagResolver|observer: AdaptyObserverModeResolver? = nil, tagResolver
Sources/AdaptyUI/AdaptyUI.swift|public init(memoryStorageTotalCostLimit: Int|public init(memoryCostLimit: Int
Sources/AdaptyUI/AdaptyUIError.swift|  case wrongComponentType(String)|  case wrongComponent(String)
Sources/AdaptyUI/Resolvers.swift|    onFinishPurchase: @MainActor @Sendable @escaping () -> Void|    onFinishPurchase: @escaping () -> Void
Sources/AdaptyUI/Platform/AdaptyFlowController.swift|didReceiveError error: AdaptyUIError)\n|didFailRenderingWith error: AdaptyUIError)\n
Sources/Adapty/Public/AdaptyPaywallProduct.swift|public protocol AdaptyPaywallProduct:|public protocol AdaptyFlowProductProtocol:
Sources/Adapty/Public/Adapty+Completion.swift|public nonisolated static func activate(\n    with configuration: AdaptyConfiguration, _ completion|public nonisolated static func activate(\n    with configuration: AdaptyConfiguration, completion
PLANTS
check >/dev/null
exit $status
