#!/usr/bin/env bash
# Type-checks the SDK's Apple-only glue (Sources/Adapty/Platform, Sources/AdaptyUI/Platform) and the seed pages'
# Apple-only samples against the interface stubs in Tests/AppleGlueCheck.
#   scripts/apple-check.sh           the check (warnings are errors)
#   scripts/apple-check.sh --prove   shows the check has teeth: plants a type error right after
#                                    the Apple imports of each glue file and expects a failure
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
check >/dev/null
exit $status
