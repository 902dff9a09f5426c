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
p3lab_keep_shaderc
./target/release/p3lab devices
out="${P3LAB_OUT:-reports/latest}"
# %-of-peak and the limiter need the device's peaks: measured once per device and driver
# (243-253 s on an H100 with every unit, each calibration counted under its unit's own
# counter too, reports/nvidia-h100/i39; cached where every later run finds them).
# P3LAB_PEAKS=auto (default) measures them when a GPU is there to pick; on a CPU device such
# as lavapipe the calibrations take over ten minutes: P3LAB_PEAKS=1 measures them anyway,
# P3LAB_PEAKS=0 never. The run's own --device (if given) picks the device for both.
device=()
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --device) j=$((i + 1)); device=(--device "${!j}") ;;
    --device=*) device=("${!i}") ;;
  esac
done
case "${P3LAB_PEAKS:-auto}" in
  1) peaks=1 ;;
  0) peaks=0 ;;
  *) if [ ${#device[@]} -eq 0 ] && ./target/release/p3lab devices | grep -qE '^  device_type +(discrete|integrated)'; then peaks=1; else peaks=0; fi ;;
esac
if [ "$peaks" = 1 ]; then
  ./target/release/p3lab -q peak --if-missing --out "$out-peak" "${device[@]}" \
    || echo "run.sh: p3lab peak failed (see $out-peak); the rows will have no %-of-peak" >&2
fi
set +e
./target/release/p3lab run scenarios/ --out "$out" --profile auto "$@"
code=$?
set -e
./target/release/p3lab report "$out" -o "$out/report" || true
echo "results: $out/results.csv ($(($(wc -l < "$out/results.csv") - 1)) rows), samples.csv, metrics.csv, run.json; report: $out/report/report.html"
exit $code
