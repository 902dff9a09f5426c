#!/usr/bin/env bash
# Issue 39 on an NVIDIA GPU, in one device call: the peaks with their counters, then the whole
# suite at full size with counters (twice with AA=1: an A/A pair of processes), each into its
# own folder, archived for the trip back (the device tool returns at most 8 files).
#
# On the device machine, from the repository root, after unpacking the Vulkan loader:
#   bash reports/gpu-i39/run.sh "$OUT" [.gpu/p3lab]
# Then here: tar xzf FILES_AT/CALL.tgz -C reports/<device>/i39/ and
#   python3 reports/gpu-i39/figures.py reports/<device>/i39/CALL
set -u
out=$1
p3lab=${2:-.gpu/p3lab}
call=${CALL:-call}
dir="$out/$call"
mkdir -p "$dir"
start=$(date +%s)
# A step starts only while this many seconds are left of the device call's limit (the
# archive is made at the end: a call cut off returns nothing).
left() { [ $(( $(date +%s) - start )) -lt $(( ${LIMIT_S:-560} - ${1:-150} )) ]; }
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  "$p3lab" --version
  "$p3lab" devices
} > "$dir/machine.txt" 2>&1
t0=$(date +%s)
"$p3lab" peak --out "$dir/peak" > "$dir/peak.txt" 2> "$dir/peak.log"
echo "peak: exit $? in $(( $(date +%s) - t0 )) s" >> "$dir/machine.txt"
for run in ${RUNS:-a}; do
  left 150 || { echo "suite-$run: skipped (time)" >> "$dir/machine.txt"; continue; }
  t0=$(date +%s)
  "$p3lab" run scenarios/ --profile auto --out "$dir/suite-$run" > "$dir/suite-$run.txt" 2> "$dir/suite-$run.log"
  echo "suite-$run: exit $? in $(( $(date +%s) - t0 )) s" >> "$dir/machine.txt"
done
# Which pipe counter stands behind the int64 and atomic calibrations (cycles active against
# instructions issued): EXTRA=1 counts them with more metrics (further passes).
if [ -n "${EXTRA:-}" ] && left 40; then
  "$p3lab" run peaks/int64_vk.toml peaks/atomic.toml peaks/l2.toml --profile full --out "$dir/extra" \
    --counters 'sm__pipe_fmaheavy_cycles_active' --counters 'sm__pipe_alu_cycles_active' \
    --counters 'sm__inst_executed' --counters 'lts__t_sectors_op_atom' --counters 'lts__t_sectors' \
    > "$dir/extra.txt" 2> "$dir/extra.log"
  echo "extra: exit $?" >> "$dir/machine.txt"
fi
# samples.csv is the largest file: gzipped, as reports/ keeps run data.
gzip -f "$dir"/suite-*/samples.csv "$dir"/peak/samples.csv 2>/dev/null
tar czf "$out/$call.tgz" -C "$out" "$call"
rm -rf "${dir:?}"
