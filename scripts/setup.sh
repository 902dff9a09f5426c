#!/usr/bin/env bash
# Shared set-up for scripts/run.sh and scripts/test.sh: make sure the system packages p3lab
# builds and runs with are installed (Debian/Ubuntu). As root, installs what is missing with
# apt-get; otherwise prints the exact command and stops.
set -euo pipefail

P3LAB_PACKAGES=(
  mesa-vulkan-drivers      # lavapipe: the CPU Vulkan device, the fallback and the CI device
  libvulkan1 libvulkan-dev # the Vulkan loader (ash opens libvulkan.so.1 at run time)
  vulkan-validationlayers  # VK_LAYER_KHRONOS_validation for --validate and the tests
  cmake ninja-build git    # shaderc, glslang and SPIRV-Tools are built from source (shaderc-sys)
  gcc g++ pkg-config       # the C/C++ toolchain for linking
  python3                  # scripts/pivot.py (standard library only) and its test
  python3-numpy            # NumPy references in scenarios (check.reference.command) and their tests
)

# scripts/test.sh sets P3LAB_SETUP=test: the fleet tests (tests/fleet/) start a real
# single-node Slurm and an sshd on 127.0.0.1 driven by GNU parallel; tests/report_html.rs
# opens report.html in headless Chromium.
if [ "${P3LAB_SETUP:-}" = test ]; then
  P3LAB_PACKAGES+=(
    slurm-wlm munge          # tests/fleet/slurm.sh: slurmctld + slurmd on this machine
    openssh-server openssh-client parallel rsync  # tests/fleet/ssh_parallel.sh
    chromium fonts-dejavu-core  # tests/report_html.rs: report.html rendered headless
  )
fi

missing=()
for p in "${P3LAB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "p3lab setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    echo "p3lab setup: missing packages: ${missing[*]}" >&2
    echo "install them with:  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v cargo >/dev/null 2>&1; then
  # shellcheck disable=SC1091
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "p3lab setup: cargo not found. Install a Rust toolchain (1.89 or newer), e.g. with rustup." >&2
  exit 1
fi

# shaderc, glslang and SPIRV-Tools are built from source (shaderc-sys) once per build folder
# (target/debug, target/release): about 35 CPU-minutes. After the first build, keep
# the library where .cargo/config.toml points shaderc-sys (target/shaderc/), so the other
# profile links it instead of building it again.
p3lab_keep_shaderc() {
  local dest=target/shaderc/libshaderc_combined.a lib
  [ -f "$dest" ] && return 0
  for lib in "${CARGO_TARGET_DIR:-target}"/*/build/shaderc-sys-*/out/lib/libshaderc_combined.a; do
    [ -f "$lib" ] || continue
    mkdir -p target/shaderc
    cp "$lib" "$dest.tmp.$$" && mv "$dest.tmp.$$" "$dest"
    return 0
  done
}
