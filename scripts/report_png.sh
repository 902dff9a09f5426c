#!/usr/bin/env bash
# Render a report.html to a PNG with headless Chromium: the picture that goes next to a report
# in reports/<device>/.
#
#   scripts/report_png.sh RUN [OUT.png] [HEIGHT]
#
# RUN is a run (or merged) folder, its report folder, or a report.html. A run folder without
# report/report.html gets one first (`p3lab report RUN`; $P3LAB, else target/release/p3lab,
# target/debug/p3lab or p3lab on PATH). OUT defaults to report.png beside report.html. The
# screenshot is 1280 px wide and as tall as the page (the page records its height when its
# script runs), at most 16000 px; HEIGHT fixes it instead. $P3LAB_CHROMIUM names the browser.
set -euo pipefail
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
here="$(cd "$(dirname "$0")/.." && pwd)"
src="$1"
if [ -f "$src" ]; then
  html="$src"
elif [ -f "$src/report.html" ]; then
  html="$src/report.html"
elif [ -f "$src/report/report.html" ]; then
  html="$src/report/report.html"
elif [ -f "$src/results.csv" ]; then
  p3lab="${P3LAB:-}"
  for c in "$here/target/release/p3lab" "$here/target/debug/p3lab" "$(command -v p3lab || true)"; do
    [ -n "$p3lab" ] && break
    [ -n "$c" ] && [ -x "$c" ] && p3lab="$c"
  done
  [ -n "$p3lab" ] || { echo "report_png.sh: no p3lab binary (cargo build, or set P3LAB)" >&2; exit 1; }
  "$p3lab" report "$src" -o "$src/report" -q
  html="$src/report/report.html"
else
  echo "report_png.sh: $src is neither a run folder, a report folder nor a report.html" >&2
  exit 2
fi
html="$(cd "$(dirname "$html")" && pwd)/$(basename "$html")"
out="${2:-$(dirname "$html")/report.png}"
chrome="${P3LAB_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}"
[ -n "$chrome" ] || { echo "report_png.sh: no chromium (apt-get install -y chromium)" >&2; exit 1; }
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
flags=(--headless --disable-gpu --no-sandbox --no-first-run --hide-scrollbars "--user-data-dir=$profile")
height="${3:-}"
if [ -z "$height" ]; then
  height="$("$chrome" "${flags[@]}" --window-size=1280,2000 --dump-dom "file://$html" 2>/dev/null |
    grep -o 'data-page-height="[0-9]*"' | head -1 | tr -dc 0-9 || true)"
  height="${height:-2000}"
  if [ "$height" -gt 16000 ]; then
    echo "report_png.sh: the page is $height px tall; the PNG shows its first 16000 px" >&2
    height=16000
  fi
fi
"$chrome" "${flags[@]}" --window-size="1280,$height" --screenshot="$out" "file://$html" 2>/dev/null
[ -s "$out" ] || { echo "report_png.sh: chromium wrote no $out" >&2; exit 1; }
echo "report_png.sh: $out (1280 x $height px) from $html" >&2
