#!/usr/bin/env bash
# Issue 15: the release binary copied alone into an empty folder, with an empty HOME (no
# source tree, no cache), runs `p3lab peak` (the built-in calibration scenarios) and a
# scenario whose shader includes p3lab.glsl (the built-in copy). From the repo root on the
# GPU machine, with the release binary at .gpu/p3lab and the Vulkan loader unpacked:
#   bash reports/nvidia-h200/run-solo.sh /tmp/solo
set -u
O=${1:-/tmp/solo}
rm -rf "$O" && mkdir -p "$O/home" "$O/bin"
cp .gpu/p3lab "$O/bin/p3lab"
cp reports/nvidia-h200/solo/mine.toml reports/nvidia-h200/solo/probe.comp "$O/"
cd "$O" || exit 1
export HOME=$O/home NO_COLOR=1
unset P3LAB_CACHE_DIR P3LAB_PEAKS_DIR P3LAB_GLSL_COMMON XDG_CACHE_HOME
{
  echo "\$ ls -A $O"; ls -A
  echo "\$ bin/p3lab --version"; bin/p3lab --version
  s=$(date +%s%N)
  echo "\$ bin/p3lab peak --out peak"; bin/p3lab peak --out peak; echo "exit $?, $(( ($(date +%s%N) - s) / 1000000 )) ms"
  echo "\$ bin/p3lab run mine.toml --out mine"; bin/p3lab run mine.toml --out mine; echo "exit $?"
  echo "\$ ls home/.cache/p3lab/assets/*/"; ls home/.cache/p3lab/assets/*/
} > solo.txt 2>&1
