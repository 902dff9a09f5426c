#!/usr/bin/env bash
# Issues 13, 14 and 16 on the GPU, from the repo root on the GPU machine, with the release
# binary at .gpu/p3lab (built on Debian 12) and the Vulkan loader unpacked:
#   bash reports/nvidia-h200/run-i13-14.sh /tmp/i1314
# suite/: the whole suite at full size (tiling_hlsl.toml included), its summary on stdout
#   (suite-summary.txt) and exported (suite-summary.md, .json), then `p3lab report` into
#   suite/report/ (report.md, report.html, SVGs); scripts/report_png.sh renders the PNG on a
#   machine with Chromium.
# hlsl-vs-glsl.txt: compare's one line per pair, GLSL against HLSL of the same tile width.
# details.txt: `list --details` of tiling_hlsl at full size.
# sigterm.txt: SIGTERM in the middle of a run of 100 000-repetition batches, and how long
#   p3lab took to exit.
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/i1314}
mkdir -p "$O"
export P3LAB_CACHE_DIR=$O/cache
$P --version > "$O/version.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw \
  --format=csv > "$O/nvidia-smi.csv" 2>&1
s=$(date +%s%N)
timeout -s INT 400 $P run scenarios/ --profile auto --out "$O/suite" \
  --export-markdown "$O/suite-summary.md" --export-json "$O/suite-summary.json" \
  > "$O/suite-summary.txt" 2> "$O/suite.log"
echo "suite: exit $?, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a "$O/walls.txt"
s=$(date +%s%N)
$P report "$O/suite" -o "$O/suite/report" > "$O/report.log" 2>&1
echo "report: exit $?, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a "$O/walls.txt"
pairs=()
for v in rowmajor-wg8x8 tilex8-wg8x8 tilex16-wg8x8 tilex32-wg8x8; do
  pairs+=(--pair "glsl-$v=hlsl-$v")
done
$P compare "$O/suite" "${pairs[@]}" -o "$O/compare-hlsl" > "$O/hlsl-vs-glsl.txt" 2>&1
echo "compare hlsl: exit $?" | tee -a "$O/walls.txt"
$P list --details scenarios/tiling_hlsl.toml --profile full > "$O/details.txt" 2>&1
# SIGTERM while batches of 100 000 repetitions run.
$P run scenarios/reduce_sum.toml --profile full --reps 100000 --warmup-ms 0 \
  --out "$O/sigterm" > /dev/null 2> "$O/sigterm.log" &
pid=$!
sleep 12
t0=$(date +%s%N)
kill -TERM $pid
wait $pid
code=$?
echo "SIGTERM after 12 s: exit $code, $(( ($(date +%s%N) - t0) / 1000000 )) ms from the signal to the exit" \
  | tee "$O/sigterm.txt"
grep -o '"interrupted": [a-z]*' "$O/sigterm/run.json" >> "$O/sigterm.txt"
rm -rf "$O/cache"
