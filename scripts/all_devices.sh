#!/usr/bin/env bash
# Run the suite on every Vulkan device of this machine one after another, one output folder per
# device, then merge them into one set of CSVs. `p3lab run --device all` runs the devices at
# once instead; this script runs one device at a time, so no run shares the machine with
# another (lavapipe, a CPU device, keeps the host's cores busy), and can leave CPU devices out.
#
# usage: scripts/all_devices.sh OUT [SCENARIOS...] [-- extra `p3lab run` arguments]
#   e.g. scripts/all_devices.sh /tmp/all                      # scenarios/ on every device
#        scripts/all_devices.sh /tmp/all scenarios/smoke.toml -- --reps 20 --profile auto
#        SKIP_CPU=1 scripts/all_devices.sh /tmp/all           # leave out lavapipe/llvmpipe
# Writes OUT/dev<INDEX>/ per device (the index of `p3lab devices`) and OUT/merged/.
# Exit code: the worst `p3lab run` exit code (3 = some rows failed), or merge's.
set -euo pipefail

if [ $# -lt 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
P3LAB="${P3LAB:-./target/release/p3lab}"
out=$1
shift
scenarios=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do scenarios+=("$1"); shift; done
[ $# -gt 0 ] && shift   # the --
[ ${#scenarios[@]} -eq 0 ] && scenarios=(scenarios/)

# The index is the first column and never quoted; the name (column 2) may hold commas, so only
# the index is cut from the CSV. Column 5 is device_type, read by python only where needed.
devices=$("$P3LAB" devices --format csv)
indices=$(echo "$devices" | awk -F, 'NR > 1 { print $1 }')
if [ -z "$indices" ]; then
  echo "all_devices: no Vulkan device" >&2
  exit 1
fi

worst=0
dirs=()
for i in $indices; do
  if [ -n "${SKIP_CPU:-}" ] && echo "$devices" | awk -F, -v i="$i" 'NR > 1 && $1 == i' | grep -q ',cpu,'; then
    echo "all_devices: skipping device $i (CPU)" >&2
    continue
  fi
  dir="$out/dev$i"
  set +e
  "$P3LAB" run "${scenarios[@]}" --device "$i" --out "$dir" "$@"
  code=$?
  set -e
  echo "all_devices: device $i -> $dir (exit $code)" >&2
  [ "$code" -eq 2 ] && exit 2   # bad scenario or flag: the same on every device
  [ "$code" -gt "$worst" ] && worst=$code
  [ -f "$dir/run.json" ] && dirs+=("$dir")
done
if [ ${#dirs[@]} -eq 0 ]; then
  echo "all_devices: no device produced results" >&2
  exit 1
fi
"$P3LAB" merge "${dirs[@]}" --out "$out/merged"
echo "all_devices: ${#dirs[@]} devices merged into $out/merged (scripts/pivot.py $out/merged)" >&2
exit "$worst"
