#!/usr/bin/env bash
# Issue 40's GPU benchmark: the real-world example (examples/llama-cpp: llama.cpp's Vulkan
# soft_max.comp and mul_mm.comp, unmodified) at full size with the hardware counters, each
# scenario bounded by `timeout 120`, then the f16-against-f32 pairs and the tile / block-size
# pairs, everything packed into OUT/i40.tgz (one file; the device tool returns at most 8).
#
# On the device machine, from the repository root:
#   bash reports/gpu-i40/run.sh "$OUT" [P3LAB] [PEAKS.csv]
# P3LAB defaults to .gpu/p3lab; PEAKS.csv (optional) gives the %-of-peak columns (a `p3lab
# peak` result of this GPU model and driver); without it the counted limiter still comes from
# the counters (CUPTI, as root). Then here:
#   mkdir -p reports/<device>/i40 && tar xzf FILES_AT/i40.tgz -C reports/<device>/i40/
#
# The NumPy references need python3 with NumPy. Where there is none, the scenarios are run
# from copies without `reference` (checked against their baseline variant only) and
# machine.txt says so.
set -u
out=${1:?usage: run.sh OUT [P3LAB] [PEAKS.csv]}
p3lab=${2:-.gpu/p3lab}
peaks=${3:-}
dir="$out/i40"
mkdir -p "$dir"
ex=examples/llama-cpp
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  "$p3lab" --version
  timeout 60 "$p3lab" devices
} > "$dir/machine.txt" 2>&1

# python3 with NumPy first on PATH, else the scenarios without their reference.
py=""
for c in python3 /usr/bin/python3 /usr/local/bin/python3 /opt/conda/bin/python3; do
  if command -v "$c" > /dev/null 2>&1 && "$c" -c 'import numpy' > /dev/null 2>&1; then
    py=$(command -v "$c"); break
  fi
done
files=("$ex/soft_max.toml" "$ex/mul_mm.toml")
if [ -n "$py" ]; then
  export PATH="$(dirname "$py"):$PATH"
  echo "reference: NumPy through $py" >> "$dir/machine.txt"
else
  echo "reference: no python3 with NumPy; checked against the baseline variants only" >> "$dir/machine.txt"
  for f in soft_max mul_mm; do
    grep -v '^reference = ' "$ex/$f.toml" > "$ex/$f.noref.toml"
  done
  files=("$ex/soft_max.noref.toml" "$ex/mul_mm.noref.toml")
fi

peak_args=()
[ -n "$peaks" ] && peak_args=(--peaks "$peaks")
for f in "${files[@]}"; do
  name=$(basename "$f" .toml); name=${name%.noref}
  t0=$(date +%s)
  timeout 120 "$p3lab" run "$f" --profile auto --out "$dir/$name" ${peak_args[@]+"${peak_args[@]}"} \
    > "$dir/$name.txt" 2> "$dir/$name.log"
  echo "$name: exit $? in $(( $(date +%s) - t0 )) s" >> "$dir/machine.txt"
done

# f16 against f32 on the same binding, llama.cpp's block-size rule, and the tiles.
# Each pair's compare.csv and compare.md go to pairs/<run>-<base>-<new>/.
{
  for rp in soft_max:soft_max_f32=soft_max_f32_f16 soft_max:soft_max_f32=soft_max_f32_wg512 \
            mul_mm:matmul_f32_f32_l=matmul_f16_f32_l mul_mm:matmul_f32_f32_m=matmul_f16_f32_m \
            mul_mm:matmul_f32_f32_s=matmul_f16_f32_s mul_mm:matmul_f16_f32_m=matmul_f16_f32_l; do
    run=${rp%%:*}; p=${rp#*:}
    echo "== $run --pair $p"
    timeout 30 "$p3lab" compare "$dir/$run" --pair "$p" --p3 -o "$dir/pairs/$run-${p/=/-}" 2>&1
  done
} > "$dir/pairs.txt"
# Each run's Markdown report (P3 tables, SVG charts) with the f16-against-f32 pairs.
timeout 60 "$p3lab" report "$dir/soft_max" -o "$dir/report-soft_max" -q \
  --pair soft_max_f32=soft_max_f32_f16 --pair soft_max_f32_wg512=soft_max_f32_f16_wg512 >> "$dir/pairs.txt" 2>&1
timeout 60 "$p3lab" report "$dir/mul_mm" -o "$dir/report-mul_mm" -q \
  --pair 'matmul_f32_f32_?=matmul_f16_f32_?' >> "$dir/pairs.txt" 2>&1

gzip -f "$dir"/*/samples.csv 2> /dev/null
tar czf "$out/i40.tgz" -C "$out" i40
rm -rf "${dir:?}"
ls -la "$out"
