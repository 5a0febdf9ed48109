#!/usr/bin/env bash
# Fetches the web app's third-party JavaScript into .build/web-vendor/ (never committed):
#   TradingView Lightweight Charts v5.2.0 (Apache-2.0), standalone build, as shipped inside the PyPI wheel
#   lightweight-charts-onesixth==3.1.1 (lightweight_charts/js/lightweight-charts.js).
# Both the wheel and the extracted file are checked against pinned SHA-256 hashes. `papertrade serve` serves the
# file at /vendor/lightweight-charts.js when it finds it (see WebApp.swift); without it the app shows prices and
# depth but says charts are unavailable.
set -euo pipefail
cd "$(dirname "$0")/.."

wheel_name=lightweight_charts_onesixth-3.1.1-py3-none-any.whl
wheel_sha256=09bdf0d30d74f3bb77084c6ecafdd3db754cd28e556f180d56b1069431c37b12
js_sha256=419c0a211b955620d78600a922771303427a9382a22d24d84145a9fdaa84ac30
out=.build/web-vendor
target=$out/lightweight-charts.js

if [ -f "$target" ] && echo "$js_sha256  $target" | sha256sum --check --status; then
    exit 0
fi
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" \
    "lightweight-charts-onesixth==3.1.1" >/dev/null
echo "$wheel_sha256  $tmp/$wheel_name" | sha256sum --check --status \
    || { echo "fetch-web-vendor: $wheel_name does not match its pinned hash" >&2; exit 1; }
python3 - "$tmp/$wheel_name" "$tmp/lightweight-charts.js" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel, open(sys.argv[2], "wb") as out:
    out.write(wheel.read("lightweight_charts/js/lightweight-charts.js"))
EOF
echo "$js_sha256  $tmp/lightweight-charts.js" | sha256sum --check --status \
    || { echo "fetch-web-vendor: lightweight-charts.js does not match its pinned hash" >&2; exit 1; }
mv "$tmp/lightweight-charts.js" "$target"
echo "fetched TradingView Lightweight Charts v5.2.0 into $target"
