#!/usr/bin/env bash
# A parameter sweep: run SCENARIO once for each value of a param.
#
# usage: scripts/sweep.sh SCENARIO PARAM "V1 V2 ..." OUT [extra `p3lab run` arguments]
#   e.g. scripts/sweep.sh scenarios/smoke.toml n "1024 4096 65536" /tmp/sweep-n --reps 20
#        MODE=loop scripts/sweep.sh scenarios/smoke.toml n "1024 4096 65536" /tmp/sweep-n
#
# Two ways, picked with MODE:
#   MODE=set (default)  one `p3lab run --set PARAM=V1,V2,...` into OUT/. Each value is a params
#       case of one run: one run_id, one results.csv, shaders compiled once, the device kept
#       warm between cases. Use this whenever the values are cases of one experiment.
#   MODE=loop           one `p3lab run --set PARAM=V` per value into OUT/PARAM=V/, then
#       `p3lab merge` into OUT/merged/. Use this when each value should be a run of its own:
#       a value may hang or lose the device (the others keep their results), values are retried
#       or spread over machines one by one, each needs its own timeout (TIMEOUT=seconds), or
#       what you sweep is not a scenario param (copy the loop and vary a flag or an env var).
# Exit code: the worst `p3lab run` exit code (3 = some rows failed, see README), or merge's.
set -euo pipefail

if [ $# -lt 4 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
P3LAB="${P3LAB:-./target/release/p3lab}"
scenario=$1 param=$2 values=$3 out=$4
shift 4
mode="${MODE:-set}"

case "$mode" in
set)
  # "1024 4096 65536" -> "1024,4096,65536"
  list=$(echo "$values" | xargs | tr ' ' ',')
  exec "$P3LAB" run "$scenario" --set "$param=$list" --out "$out" "$@"
  ;;
loop)
  worst=0
  dirs=()
  for v in $values; do
    dir="$out/$param=$v"
    set +e
    if [ -n "${TIMEOUT:-}" ]; then
      timeout "$TIMEOUT" "$P3LAB" run "$scenario" --set "$param=$v" --out "$dir" "$@"
    else
      "$P3LAB" run "$scenario" --set "$param=$v" --out "$dir" "$@"
    fi
    code=$?
    set -e
    echo "sweep: $param=$v -> $dir (exit $code)" >&2
    [ "$code" -eq 2 ] && exit 2   # bad scenario or flag: every other value would fail the same way
    [ "$code" -gt "$worst" ] && worst=$code
    # A run that got far enough to write run.json has rows worth keeping, even if it failed.
    [ -f "$dir/run.json" ] && dirs+=("$dir")
  done
  if [ ${#dirs[@]} -eq 0 ]; then
    echo "sweep: no run produced results" >&2
    exit 1
  fi
  "$P3LAB" merge "${dirs[@]}" --out "$out/merged"
  echo "sweep: merged ${#dirs[@]} runs into $out/merged" >&2
  exit "$worst"
  ;;
*)
  echo "sweep: MODE must be set or loop, not $mode" >&2
  exit 2
  ;;
esac
