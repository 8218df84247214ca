#!/usr/bin/env bash
# `make test`: every check, ordered so that the two cores of a small machine never wait on one
# long chain. The package's release build is such a chain (whole-module optimisation compiles one
# module at a time, in one process, about five minutes of one core): it has a build folder of its
# own, so it starts first and shares the cores with the debug build. It is stopped (SIGSTOP)
# while the Swift tests run: beside a busy compiler a test's PostgreSQL connection once took
# longer than its 3 s connect timeout (at nice 19 or as an idle task it still made the tests
# 50–70 s longer). Then the contract run (Python), the browser test (mostly waiting on Chromium)
# and the layers proof (a few small builds) run beside the rest of it. Their output follows once
# all are done.
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

# Each background job in a process group of its own (job control on while it starts); a failure
# or Ctrl-C ends it with its compilers and servers instead of leaving them running.
started=()
stop_all() {
  local job
  for job in "${started[@]}"; do
    signal_tree TERM "$job"
    signal_tree CONT "$job" # a stopped process ends once continued
  done
  rm -rf "${seeded:-}" # the browser test's data, when a failure came before the browser test
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

background env SWIFT="$swift" bash scripts/package.sh >.build/package.log 2>&1
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
seeded=$(mktemp -d /tmp/tollgate-dashboard.XXXXXX)
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
# These three at nice 5: the package build, one compiler on one core, is then the longest chain
# left; at equal priority it ran alone, one core idle, for its last 60 s (a run took 890 s then,
# 840 s with this and the package's zstd compression).
background nice -n 5 bash scripts/contract.sh "$products/tollgate" >.build/contract.log 2>&1
contract=${started[-1]}
background env SWIFT="$swift" LAYERS_PROOF_FLAGS="${flags[*]}" nice -n 5 bash scripts/layers-proof.sh \
  >.build/layers-proof.log 2>&1
proof=${started[-1]}
dashboard=0
wait "$seeding" || dashboard=$?
cat .build/dashboard-seed.log
if [ "$dashboard" -eq 0 ]; then
  DASHBOARD_SEEDED="$seeded" nice -n 5 bash scripts/dashboard-test.sh "$products/tollgate" || dashboard=$?
else
  tail -20 "$seeded/demo.log"
  rm -rf "$seeded"
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
  bash scripts/package-test.sh "$(ls -t .build/package/*.deb | head -1)" "$products/tollgate"
else
  echo "package-test skipped: installing a package needs root"
fi
