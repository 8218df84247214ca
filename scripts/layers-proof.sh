#!/usr/bin/env bash
# Shows the server's layers are kept by the compiler, not by review: plants, in each lower
# target, a file that imports a target above it (or beside it) and uses one of its types, and
# expects the build to fail, naming that module. Layers: Support ← Domain ← Persistence ← Server,
# Support ← HTTP ← Server.
# The plants go from the top target down: a target's plant, once removed, leaves it to be compiled
# again, and no later plant's build needs it then. Nothing compiles them again here (the next build
# does): `make test` builds nothing after this, and each such compile cost seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
swift="${SWIFT:-swift}"
# LAYERS_PROOF_FLAGS: more `swift build` options (make test: its own build folder and flags, whose
# lower targets are built already).
read -ra flags <<<"${LAYERS_PROOF_FLAGS:-}"
build() { "$swift" build --explicit-target-dependency-import-check error "${flags[@]}" --target "$1"; }

# target | module it must not import | a type of that module
plants=(
  "TollgateHTTP|TollgateDomain|CompiledConfig"
  "TollgateHTTP|TollgatePersistence|StoreError"
  "TollgateHTTP|TollgateServer|Service"
  "TollgatePersistence|TollgateHTTP|Request"
  "TollgatePersistence|TollgateServer|Service"
  "TollgateDomain|TollgatePersistence|StoreError"
  "TollgateDomain|TollgateHTTP|Request"
  "TollgateDomain|TollgateServer|Service"
  "TollgateSupport|TollgateDomain|CompiledConfig"
  "TollgateSupport|TollgateHTTP|Router"
)

for target in TollgateSupport TollgateDomain TollgatePersistence TollgateHTTP; do
  build "$target" >/dev/null
done
status=0
for plant in "${plants[@]}"; do
  IFS='|' read -r target module type <<<"$plant"
  file="Sources/$target/PlantedUpwardReference.swift"
  trap 'rm -f "$file"' EXIT
  printf 'import %s\n\nlet plantedUpwardReference: Any.Type = %s.self\n' "$module" "$type" >"$file"
  if output=$(build "$target" 2>&1); then
    echo "FAIL $target imports $module and uses $type: it built"
    status=1
  elif ! grep -q "error: .*$module" <<<"$output"; then
    # Failing for another reason (a misspelt type, a broken target) proves nothing.
    echo "FAIL $target with an import of $module: the build fails, but no error names $module"
    echo "$output" | grep 'error:' | head -5
    status=1
  else
    echo "ok   $target cannot import $module ($type): the build fails"
  fi
  rm -f "$file"
  trap - EXIT
done
exit $status
