#!/usr/bin/env bash
# Every test: install what is missing, check formatting and lints, build, and run the unit and
# integration tests. The integration tests run the real Vulkan path on lavapipe.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
# Without a GPU, lavapipe is the device; with one, the tests still pass on it.
cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked 2>&1
