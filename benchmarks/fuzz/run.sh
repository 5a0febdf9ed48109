#!/usr/bin/env bash
# The release-length fuzz run: schemathesis over /openapi.json with many seeds and examples (the fuzz wall of
# tests/e2e/test_openapi.py, longer), then each libFuzzer parser target for minutes, merging new coverage into
# fuzz/corpus (commit what it adds). Prints each seed's number of test cases and each target's number of inputs.
#   bash benchmarks/fuzz/run.sh [SEEDS] [EXAMPLES] [SECONDS_PER_TARGET]
#   defaults: ten seeds (1…10), 100 examples per operation, 300 s per parser target
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:-1,2,3,4,5,6,7,8,9,10}
examples=${2:-100}
seconds=${3:-300}

swift build --product papertrade
venv=.build/e2e-venv
if [ ! -x "$venv/bin/pytest" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --require-hashes -r tests/e2e/requirements.txt
fi
echo "== schemathesis: seeds $seeds, $examples examples per operation"
PAPERTRADE_FUZZ_SEEDS=$seeds PAPERTRADE_FUZZ_EXAMPLES=$examples PAPERTRADE_BINARY="$PWD/.build/debug/papertrade" \
    "$venv/bin/pytest" -q -s tests/e2e/test_openapi.py
echo "== libFuzzer: ${seconds}s per parser target, new coverage merged into fuzz/corpus"
PAPERTRADE_FUZZ_MERGE=1 bash scripts/fuzz.sh "$seconds"
