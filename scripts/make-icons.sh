#!/usr/bin/env bash
# Renders the web app's PNG icons (192 and 512 px, for the PWA manifest) from icons/icon.svg with headless
# Chromium. The PNGs are committed; run this again after changing the SVG.
set -euo pipefail
cd "$(dirname "$0")/../Sources/Server/Web/icons"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for size in 192 512; do
    printf '<html><body style="margin:0;background:transparent"><img src="file://%s/icon.svg" width="%s" height="%s"></body></html>' \
        "$PWD" "$size" "$size" > "$tmp/icon.html"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --default-background-color=00000000 \
        --window-size="$size,$size" --screenshot="$PWD/icon-$size.png" "file://$tmp/icon.html" 2>/dev/null
done
ls -l icon-*.png
