#!/usr/bin/env bash
# The main job: install what is missing, build p3lab (release), and run every scenario in
# scenarios/ on the best Vulkan device (first discrete GPU, else integrated, else lavapipe;
# full sizes (--profile auto) on a GPU, small ones on lavapipe)
# into reports/latest/, then its report (report.md, report.html, SVG charts) into
# reports/latest/report/. Extra arguments go to `p3lab run` (e.g. --device 1, --set n=1024).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
cargo build --release --locked
./target/release/p3lab devices
out="${P3LAB_OUT:-reports/latest}"
set +e
./target/release/p3lab run scenarios/ --out "$out" --profile auto "$@"
code=$?
set -e
./target/release/p3lab report "$out" -o "$out/report" || true
echo "results: $out/results.csv ($(($(wc -l < "$out/results.csv") - 1)) rows), samples.csv, metrics.csv, run.json; report: $out/report/report.html"
exit $code
