#!/usr/bin/env bash
# CI regression gate: run the scenarios, then compare with a saved baseline and fail when a
# variant got slower beyond noise (the whole confidence interval of the change past the noise
# threshold, as `p3lab compare` decides), or when a row no longer runs or checks out.
#
# usage: scripts/regression_gate.sh BASELINE [SCENARIOS...] [-- extra `p3lab run` arguments]
#        scripts/regression_gate.sh --save BASELINE [SCENARIOS...] [-- ...]   # (re)make it
#   e.g. on the main branch:  scripts/regression_gate.sh --save main
#        on a pull request:   scripts/regression_gate.sh main scenarios/ -- --reps 50
# Env: P3LAB (binary), OUT (run folder; default target/p3lab-gate/run).
# Baselines live in .p3lab/baselines of the working directory: persist that folder between CI
# jobs (a cache keyed by runner and GPU; a baseline only means something on the machine and
# driver that made it).
# Exit code: 0 no regression; 4 a regression (as `p3lab compare --fail-on-regression`);
#            3 the run has compile_error / check_failed / error rows; 1 the run or the
#            comparison failed (no device, no such baseline, ...); 2 bad arguments.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
P3LAB="${P3LAB:-./target/release/p3lab}"
save=""
if [ "${1:-}" = "--save" ]; then save=1; shift; fi
[ $# -ge 1 ] || usage
name=$1
shift
scenarios=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do scenarios+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#scenarios[@]} -eq 0 ] && scenarios=(scenarios/)
out="${OUT:-target/p3lab-gate/run}"

rm -rf "$out"
set +e
if [ -n "$save" ]; then
  "$P3LAB" run "${scenarios[@]}" --out "$out" --save-baseline "$name" "$@"
else
  "$P3LAB" run "${scenarios[@]}" --out "$out" "$@"
fi
code=$?
set -e
if [ "$code" -ne 0 ]; then
  # 3: a variant that no longer compiles, checks out or runs is a regression too. With --save,
  # re-make the baseline from a clean run.
  echo "regression_gate: p3lab run exited $code (results in $out)" >&2
  exit "$code"
fi
[ -n "$save" ] && { echo "regression_gate: saved baseline $name from $out" >&2; exit 0; }

set +e
"$P3LAB" compare --baseline "$name" "$out" --fail-on-regression --out "$out/compare"
code=$?
set -e
if [ "$code" -eq 4 ]; then
  echo "regression_gate: a variant got slower than in baseline $name (see $out/compare/compare.md)" >&2
  exit 4
elif [ "$code" -ne 0 ]; then
  echo "regression_gate: the comparison with baseline $name failed (exit $code)" >&2
  exit 1
fi
echo "regression_gate: no regression against baseline $name" >&2
