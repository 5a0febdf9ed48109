#!/usr/bin/env bash
# Runs the whole papertrade test suite. CI (.ci/run) calls exactly this.
#   0. the layering check (scripts/check-layering.sh) and its own tests; swift-format lint (.swift-format)
#   1. swift test: TradingCore, MarketData, Storage and Server (unit, specification, property-based, HTTP);
#      the storage suite runs on SQLite and on a throwaway PostgreSQL server this script starts; PapertradeKit
#      against a live server, and its DocC documentation built with warnings as errors
#   2. libFuzzer over the parsers (scripts/fuzz.sh): decimals, arithmetic, dates, times, JSON, CSV bars
#   3. end-to-end (pytest): the built server driven by the real alpaca-py client, incl. a kill -9 crash test, the
#      fuzz wall (schemathesis, several seeds, stateful), and the web app driven by Selenium in Debian's headless
#      Chromium (screenshots in tests/e2e/screenshots/)
#
#   --under-load   the same suite with two CPU-bound processes beside it for its whole run (issue 54): no test may
#                  depend on how fast the machine is, and this is how a change shows that none does.
set -euo pipefail
cd "$(dirname "$0")/.."
burners=()
# A stalled swift test run fails its stage after this long (doubled under load: the suite runs at half speed).
test_deadline=900
stop_burners() { [ ${#burners[@]} -eq 0 ] || kill "${burners[@]}" 2>/dev/null || true; }
for arg in "$@"; do
    case $arg in
    --under-load)
        for _ in 1 2; do
            python3 -c 'while True: pass' &
            burners+=($!)
        done
        trap stop_burners EXIT
        test_deadline=1800
        echo "== under load: two CPU-bound processes (${burners[*]}) run beside the suite"
        ;;
    *)
        echo "usage: scripts/test.sh [--under-load]" >&2
        exit 2
        ;;
    esac
done
# Each stage's wall time, printed as the next starts and at the end (the whole run is meant to stay under 30 min).
stage_started=$SECONDS
stage_name=""
stage() {
    [ -n "$stage_name" ] && echo "   ($stage_name: $((SECONDS - stage_started)) s)"
    stage_name=$1
    stage_started=$SECONDS
    echo "== $1"
}

stage "layering: modules import only what the design allows"
bash tests/layering/run.sh

stage "formatting: the tree is as swift-format (.swift-format) leaves it"
git ls-files -z '*.swift' | xargs -0 swift format lint --strict --parallel

stage "Chromium for the browser tests, the chart library for the web app"
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-noto-cjk >/dev/null
fi
bash scripts/fetch-web-vendor.sh

stage "PostgreSQL for the storage tests"
pgdir=$(mktemp -d)/pg
trap 'bash scripts/postgres.sh stop "$pgdir" 2>/dev/null || true; stop_burners' EXIT
PAPERTRADE_TEST_POSTGRES_URL=$(bash scripts/postgres.sh start "$pgdir" | tail -1)
export PAPERTRADE_TEST_POSTGRES_URL

stage "swift test"
swift build --build-tests
# The WAL-bound test (CheckpointTests) measures whether the checkpointer keeps up with back-to-back commits: it
# runs alone, after the rest, so the other suites' CPU work (two cores here) and the build's dirty pages being written
# back do not starve the checkpointer and read as a WAL that was not restarted.
# The storage suites (SQLite and PostgreSQL) run on their own before the rest: run in one process with everything
# else, the whole test process stopped with every task suspended in about half the runs with PostgreSQL on (2026-11-26;
# not seen in 6 runs split like this; under investigation, see issue 34's notes). Each run has a deadline, so a stall
# fails this stage in minutes, with the suites still running named, instead of eating the whole CI budget.
sync
run_tests() { # a label, then swift test's arguments
    local label=$1 log
    shift
    log=$(mktemp)
    if ! timeout "$test_deadline" swift test --skip-build "$@" 2>&1 | tee "$log"; then
        echo "swift test ($label) failed or stalled; still running when it stopped:" >&2
        python3 - "$log" <<'PY' >&2
import re, sys
started, finished = [], set()
for line in open(sys.argv[1], errors="replace"):
    if m := re.match(r'◇ Test (.*) started\.$', line.rstrip()):
        started.append(m.group(1))
    elif m := re.match(r'[✔✘] Test (.*?) (with \d+ test cases? )?(passed|failed)', line):
        finished.add(m.group(1))
for name in started:
    if name not in finished and not name.startswith("case"):
        print("   ", name[:160])
PY
        return 1
    fi
}
run_tests storage --filter StorageTests --skip CheckpointTests
run_tests "everything else" --skip StorageTests --skip CheckpointTests
run_tests checkpoints --filter CheckpointTests

stage "documentation: PapertradeKit's DocC builds with no broken link or warning"
docs=$(mktemp -d)
swift package --allow-writing-to-directory "$docs" generate-documentation --target PapertradeKit \
    --warnings-as-errors --output-path "$docs" >/dev/null
rm -rf "$docs"

# libFuzzer builds its own product (.build-fuzz) and fuzzes while the end-to-end tests run (they mostly wait on
# browsers, timers and servers); its report follows theirs.
fuzz_log=$(mktemp)
bash scripts/fuzz.sh 10 >"$fuzz_log" 2>&1 &
fuzz_pid=$!

stage "end-to-end (alpaca-py against the built server)"
venv=.build/e2e-venv
stamp="$venv/requirements.sha256"
if [ ! -x "$venv/bin/pytest" ] || ! sha256sum --check --status "$stamp" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --require-hashes -r tests/e2e/requirements.txt
    sha256sum tests/e2e/requirements.txt > "$stamp"
fi
# Three pytest processes side by side: the fuzz walls (schemathesis on both ports, the socket fuzzer), the browser
# screens (Selenium in Chromium), and the rest. Most end-to-end tests wait on browsers, timers and servers starting
# (the two cores sat 50-80% idle with one process), so together they take little more than the longest (the walls,
# ~13 min). Each test has its own servers on free ports. The browsers' and the walls' output follows the rest's.
export PAPERTRADE_BINARY="$PWD/.build/debug/papertrade"
walls=(tests/e2e/test_openapi.py tests/e2e/test_ib_openapi.py tests/e2e/test_socket_fuzz.py tests/e2e/test_mcp_fuzz.py)
screens=(tests/e2e/test_web_tour.py tests/e2e/test_web_app.py tests/e2e/test_web_app_zh.py tests/e2e/test_performance.py
    tests/e2e/test_options_web.py tests/e2e/test_earnings.py tests/e2e/test_backtest_web.py tests/e2e/test_figures_agree.py
    tests/e2e/test_accessibility.py)
walls_log=$(mktemp)
screens_log=$(mktemp)
"$venv/bin/pytest" -q --durations=8 "${walls[@]}" >"$walls_log" 2>&1 &
walls_pid=$!
"$venv/bin/pytest" -q --durations=8 "${screens[@]}" >"$screens_log" 2>&1 &
screens_pid=$!
status=0
"$venv/bin/pytest" -q --durations=12 tests/e2e "${walls[@]/#/--ignore=}" "${screens[@]/#/--ignore=}" || status=1
wait "$screens_pid" || status=1
echo "-- the screens in the browser:"
cat "$screens_log"
wait "$walls_pid" || status=1
echo "-- the fuzz walls:"
cat "$walls_log"
stage "libFuzzer: the parsers of request and file text, 10 s each from the committed corpus (ran beside the above)"
wait "$fuzz_pid" || status=1
grep -v '^\[' "$fuzz_log" || true
[ "$status" -eq 0 ]
stage "done in $SECONDS s"
