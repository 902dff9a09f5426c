#!/usr/bin/env bash
# Same measurement before and after a change (issues 42 and 43): build BASE_REV and NEW_REV
# (default HEAD) in throw-away worktrees, run the same lavapipe command with each (a fixed
# number of rounds, repetitions and seed, so that the rows, rounds, batches and orders do not
# depend on timing),
# and compare the run folders with scripts/same_output.py: every cell and key that does not
# depend on time must be byte-identical.
#   scripts/same_output.sh BASE_REV [NEW_REV] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/same_output.sh BASE_REV [NEW_REV] [OUT_DIR]}
new=${2:-HEAD}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
repo=$PWD
work=$(mktemp -d)
trap 'for d in "$work"/*/; do git -C "$repo" worktree remove --force "$d" 2>/dev/null || true; done; rm -rf "$work"' EXIT
# One target folder for both builds: the dependencies are built once.
export CARGO_TARGET_DIR="$repo/target/same-output"
for side in base new; do
  rev=$base; [ "$side" = new ] && rev=$new
  git worktree add -q --detach "$work/$side" "$rev"
  mkdir -p "$work/$side/target"
  cp -a target/shaderc "$work/$side/target/"
  (cd "$work/$side" && cargo build --release --locked -q)
  cp "$CARGO_TARGET_DIR/release/p3lab" "$out/p3lab-$side"
done
for side in base new; do
  rm -rf "$out/$side"
  # --reps 2000 (the most a batch holds) fixes every batch's size: a smaller count is
  # raised to fill a millisecond by the first round's median, which depends on timing; the
  # placement check's extra round is taken only for variants whose time moved.
  (cd "$work/new" && "$out/p3lab-$side" run scenarios/smoke.toml scenarios/bank_conflicts.toml \
    --out "$out/$side" --rounds 4 --max-rounds 4 --reps 2000 --seed 7 --no-placement-check -q) >"$out/$side.log" 2>&1 || true
done
echo "base $(git rev-parse --short "$base"), new $(git rev-parse --short "$new"); folders in $out"
python3 scripts/same_output.py "$out/base" "$out/new"
