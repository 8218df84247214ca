#!/usr/bin/env bash
# `make test`: every check, ordered so that the two cores of a small machine are busy to the end.
# The Debian package is built from the start beside the debug build of the tests, in a folder of
# its own (a build linked to the static runtime cannot share the tests' folder): a debug build of
# the server alone (scripts/package.sh says why debug). It is stopped (SIGSTOP) should it still
# run when the Swift tests start: beside a busy compiler a test's PostgreSQL connection once took
# longer than its 3 s connect timeout. Then the contract run (Python), the browser test (mostly
# waiting on Chromium) and the layers proof (a few small builds) run side by side. Their output
# follows once all are done.
# The tests build in a folder of their own, without debug information (a seventh of the debug
# build's time; a failing check says where by its file and line, not by a debugger): `swift build`
# in .build keeps its own incremental state and its debug information.
set -euo pipefail
cd "$(dirname "$0")/.."
swift="${SWIFT:-swift}"
read -ra layers <<<"${LAYERS:---explicit-target-dependency-import-check error}"
mkdir -p .build
scratch=.build/test-build
flags=("${layers[@]}" --scratch-path "$scratch" -Xswiftc -gnone)
products=$scratch/debug
export TOLLGATE_TEST_PRODUCTS="$PWD/$products"
# Every temporary file of the run (the tests' directories, the compilers', Chromium's) in one
# folder, removed at the end: a run used to leave thousands in /tmp. Short: PostgreSQL's socket
# paths under it must stay within 107 bytes.
TMPDIR=$(mktemp -d /tmp/tollgate-test.XXXXXX)
chmod 1777 "$TMPDIR" # as /tmp: the PostgreSQL user writes there too
export TMPDIR

# Each background job in a process group of its own (job control on while it starts); a failure
# or Ctrl-C ends it with its compilers and servers instead of leaving them running.
started=()
stop_all() {
  local job
  for job in "${started[@]}"; do
    signal_tree TERM "$job"
    signal_tree CONT "$job" # a stopped process ends once continued
  done
  rm -rf "$TMPDIR"
}
trap stop_all EXIT
background() {
  set -m
  "$@" &
  started+=("$!")
  set +m
}

# Sends a signal to a job and every process under it, parents before their children (a parent
# stopped first starts no new child meanwhile).
signal_tree() {
  local signal=$1 tree queue pid
  tree=$(ps -eo pid=,ppid=)
  queue=("$2")
  while [ ${#queue[@]} -gt 0 ]; do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    kill "-$signal" "$pid" 2>/dev/null || true
    queue+=($(awk -v parent="$pid" '$2 == parent { print $1 }' <<<"$tree"))
  done
}

background env SWIFT="$swift" PACKAGE_CONFIGURATION=debug bash scripts/package.sh >.build/package.log 2>&1
package=${started[-1]}
# The Python environments of the contract run and the browser test: pip mostly waits on the
# network, so beside the compilers it costs little, and those checks start at once later.
background bash -c 'bash scripts/python-venv.sh .build/contract-venv Tests/Contract/requirements.txt &&
  bash scripts/python-venv.sh .build/dashboard-venv Tests/Dashboard/requirements.txt' >.build/venvs.log 2>&1
venvs=${started[-1]}
# The SDK's Apple-only glue against the interface stubs: a small build of its own.
background env SWIFT="$swift" bash scripts/apple-check.sh >.build/apple-check.log 2>&1
apple=${started[-1]}

"$swift" build "${flags[@]}" --build-tests
"$swift" build "${flags[@]}" --product tollgate
"$swift" build "${flags[@]}" --product tollgate-dev
signal_tree STOP "$package"
# The browser test's data: the demo's default run, mostly waiting on its own requests (a third of
# a core), so it runs beside the tests, in their idle time, instead of before the browser.
seeded=$(mktemp -d "$TMPDIR/tollgate-dashboard.XXXXXX")
background bash -c 'echo "== seeding: tollgate-dev demo --keep $2/dashboard.sqlite" &&
  "$1-dev" demo --keep "$2/dashboard.sqlite" >"$2/demo.log"' seed "$products/tollgate" "$seeded" \
  >.build/dashboard-seed.log 2>&1
seeding=${started[-1]}
# The throw-away cluster without fsync: its data need not outlive this machine, only a killed
# process (the tests that stop PostgreSQL with -m immediate), and the kernel keeps what was written.
TOLLGATE_POSTGRES_OPTS="-c fsync=off" bash scripts/with-postgres.sh "$swift" test "${flags[@]}" --skip-build
signal_tree CONT "$package"

venvs_made=0
wait "$venvs" || venvs_made=$?
cat .build/venvs.log
test "$venvs_made" -eq 0

# The layers proof builds only the lower targets, in the tests' build folder (what it compiles is
# built already): the binaries the contract run and the browser test start are not relinked. The
# package build listed its files before any planted one exists.
background bash scripts/contract.sh "$products/tollgate" >.build/contract.log 2>&1
contract=${started[-1]}
background env SWIFT="$swift" LAYERS_PROOF_FLAGS="${flags[*]}" bash scripts/layers-proof.sh \
  >.build/layers-proof.log 2>&1
proof=${started[-1]}
dashboard=0
wait "$seeding" || dashboard=$?
cat .build/dashboard-seed.log
if [ "$dashboard" -eq 0 ]; then
  DASHBOARD_SEEDED="$seeded" bash scripts/dashboard-test.sh "$products/tollgate" || dashboard=$?
else
  tail -20 "$seeded/demo.log"
fi
contracted=0
wait "$contract" || contracted=$?
cat .build/contract.log
proved=0
wait "$proof" || proved=$?
cat .build/layers-proof.log
checked=0
wait "$apple" || checked=$?
echo "== the Apple-only glue against the interface stubs"
cat .build/apple-check.log
packaged=0
wait "$package" || packaged=$?
cat .build/package.log
echo "== contract run: exit $contracted, browser test: exit $dashboard, layers proof: exit $proved," \
  "Apple glue check: exit $checked, package build: exit $packaged"
test "$contracted" -eq 0 -a "$dashboard" -eq 0 -a "$proved" -eq 0 -a "$checked" -eq 0 -a "$packaged" -eq 0

if [ "$(id -u)" = 0 ]; then
  bash scripts/package-test.sh "$(ls -t .build/package-debug/*.deb | head -1)" "$products/tollgate"
else
  echo "package-test skipped: installing a package needs root"
fi
