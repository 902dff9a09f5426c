#!/usr/bin/env bash
# Every test: install what is missing, check formatting and lints, build, and run the unit and
# integration tests. The integration tests run the real Vulkan path on lavapipe.
set -euo pipefail
cd "$(dirname "$0")/.."
P3LAB_SETUP=test . scripts/setup.sh
# Without a GPU, lavapipe is the device; with one, the tests still pass on it.
cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
p3lab_keep_shaderc
# tests/report_html.rs skips without Chromium unless this is set: here it must run.
export P3LAB_REQUIRE_CHROMIUM=1
cargo test --locked 2>&1
# The fleet tests: a real Slurm and GNU parallel over ssh on this machine, each started and
# stopped by its own script, driving the binary cargo test just built.
shopt -s nullglob
for t in tests/fleet/*.sh; do
  echo "== $t" >&2
  P3LAB="$PWD/target/debug/p3lab" timeout 600 bash "$t"
done
