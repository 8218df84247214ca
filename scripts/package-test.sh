#!/usr/bin/env bash
# Installs the Debian package (scripts/package.sh) on this machine as an operator would, with
# the Swift toolchain's libraries hidden from the loader, and checks it end to end: the unit,
# the user, the data directory, the service's own ExecStart as the tollgate user answering SDK
# requests, then removal (data kept) and purge (data gone). Needs root.
#   scripts/package-test.sh PACKAGE.deb [DYNAMIC-BUILD]   (a build linked to the toolchain's runtime,
#                                                        default .build/debug/tollgate: the hiding's teeth)
set -euo pipefail
cd "$(dirname "$0")/.."
package=$(readlink -f "$1")
dynamic=${2:-.build/debug/tollgate}
failures=0
check() { if eval "$1"; then echo "ok   $2"; else echo "FAIL $2"; failures=$((failures + 1)); fi; }
[ "$(id -u)" = 0 ] || { echo "error: the install test needs root (dpkg -i)" >&2; exit 1; }

if dpkg -s tollgate >/dev/null 2>&1; then dpkg -P tollgate >/dev/null; fi
dpkg -i "$package" >/dev/null
unit=/lib/systemd/system/tollgate.service
check '[ -x /usr/bin/tollgate ] && [ -f "$unit" ]' "installed: /usr/bin/tollgate and $unit"
check 'getent passwd tollgate >/dev/null && [ "$(getent passwd tollgate | cut -d: -f7)" = /usr/sbin/nologin ]' \
  "a tollgate system user without a login shell"
check '[ "$(stat -c "%U %a" /var/lib/tollgate)" = "tollgate 750" ]' "/var/lib/tollgate belongs to it (0750)"
check '[ "$(stat -c "%U:%G %a" /etc/tollgate/tollgate.env)" = "root:tollgate 640" ]' "/etc/tollgate/tollgate.env root:tollgate 0640"
for setting in "Restart=on-failure" "NoNewPrivileges=yes" "ProtectSystem=strict" "ReadWritePaths=/var/lib/tollgate" "User=tollgate"; do
  check 'grep -qx "$setting" "$unit"' "the unit sets $setting"
done
if command -v systemd-analyze >/dev/null; then
  output=$(systemd-analyze verify "$unit" 2>&1 || true)
  check '[ -z "$(echo "$output" | grep -v "^$" | grep -iv "bpf\|cgroup\|not booted\|failed to .*manager")" ]' \
    "systemd-analyze verify: ${output:-no complaints}"
fi

# The toolchain's libraries hidden from the loader (an empty directory mounted over them) in a
# private mount namespace: what runs here is what runs on a server without Swift.
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib
case "$toolchain" in /lib | /usr/lib | /usr/local/lib) echo "error: the toolchain lives in $toolchain; cannot hide it" >&2; exit 1 ;; esac
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
settings=$(grep -E '^[A-Z_]+=' /etc/tollgate/tollgate.env | tr '\n' ' ')
as_service() { unshare --mount sh -c "mount -t tmpfs -o ro tmpfs '$toolchain' && exec runuser -u tollgate -- env -i $settings TOLLGATE_PORT=$port $*"; }
if [ -x "$dynamic" ]; then
  check '! unshare --mount sh -c "mount -t tmpfs -o ro tmpfs $toolchain && $dynamic --help" >/dev/null 2>&1' \
    "the hiding has teeth: a build linked to the toolchain's runtime does not start"
fi
check 'as_service /usr/bin/tollgate --help >/dev/null 2>&1 || as_service /usr/bin/tollgate help >/dev/null 2>&1' \
  "tollgate runs with the toolchain's libraries hidden ($toolchain)"
keys=$(as_service /usr/bin/tollgate keys create --app shop)
public=$(echo "$keys" | awk '/^public key:/ { print $3 }')
as_service /usr/bin/tollgate import /usr/share/doc/tollgate/sample-config.json --app shop >/dev/null
as_service "$exec_start" > /tmp/tollgate-package-serve.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; pkill -u tollgate 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
profile=$(curl -s -X POST "http://127.0.0.1:$port/v1/sdk/profiles" -H "Authorization: Api-Key $public" \
  -H 'Content-Type: application/json' -d "{\"profile_id\":\"$(python3 -c 'import uuid; print(uuid.uuid4())')\"}" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin).get("id", ""))')
check '[ -n "$profile" ]' "the service (its ExecStart, as tollgate) creates a profile: $profile"
flow=$(curl -s "http://127.0.0.1:$port/v1/sdk/placements/onboarding/flow?profile_id=$profile" \
  -H "Authorization: Api-Key $public" | python3 -c 'import json, sys; print(json.load(sys.stdin)["flow"]["id"])')
check '[ "$flow" = standard ]' "and resolves a placement: onboarding → $flow"
check '[ "$(stat -c %U /var/lib/tollgate/tollgate.sqlite)" = tollgate ]' "the SQLite file is the service user's"
# runuser forwards the signal to the server; anything left of the user's processes goes too.
kill $server; wait $server 2>/dev/null || true
pkill -TERM -u tollgate 2>/dev/null || true
for _ in $(seq 1 50); do pgrep -u tollgate >/dev/null || break; sleep 0.1; done
trap - EXIT
check '[ ! -e /var/lib/tollgate/secrets.key ] || [ "$(stat -c %a /var/lib/tollgate/secrets.key)" = 600 ]' \
  "secrets.key, when made, is 0600"

dpkg -r tollgate >/dev/null
check '[ ! -e /usr/bin/tollgate ] && [ -f /var/lib/tollgate/tollgate.sqlite ] && [ -f /etc/tollgate/tollgate.env ]' \
  "removed: the binary is gone, the data and settings are kept"
dpkg -P tollgate >/dev/null
check '[ ! -e /var/lib/tollgate ] && [ ! -e /etc/tollgate ] && ! getent passwd tollgate >/dev/null' \
  "purged: data, settings and user are gone"
echo "$failures failure(s)"
[ "$failures" = 0 ]
