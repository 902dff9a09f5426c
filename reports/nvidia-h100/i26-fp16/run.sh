#!/usr/bin/env bash
# Issue 26, FP16 packed rate and texture rates: everything in one device call (repo root; the
# stripped release binary in .gpu/p3lab; the experiment files in .gpu/exp; the changed
# calibration, glsl/peak/fma.comp and peaks/fma.toml of branch fp16, copied to .gpu/exp/cand).
# usage: bash .gpu/exp/run4.sh OUTDIR
set -u
D=${1:-/tmp/i26f}
E=.gpu/exp
P=.gpu/p3lab
mkdir -p "$D"
t0=$(date +%s)
step() { echo "== $(( $(date +%s) - t0 ))s $*" | tee -a "$D/steps.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$D/machine.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 250 > "$D/clocks.csv" 2>&1 &
SMI=$!
step nvcc
( nvcc -O3 -arch=sm_90 -o /tmp/fma_cuda $E/fma_cuda.cu > "$D/nvcc.log" 2>&1 && cuobjdump -sass /tmp/fma_cuda > /tmp/cuda.sass 2>&1 ) &
NVCC=$!
$P devices > "$D/devices.txt" 2>&1
# 1. The calibration as it was (built into the binary) and as changed (cand/), same call.
step peak-builtin
timeout 90 $P -q peak --filter 'fp16-*' --filter 'fp32-*' --out "$D/peak_builtin" > "$D/peak_builtin.out" 2>&1; echo "rc=$?" >> "$D/peak_builtin.out"
step peak-new
timeout 200 $P -q peak --peaks-dir $E/cand/peaks --filter 'fp16-*' --filter 'fp32-*' --filter 'fp64-*' --out "$D/peak_new" > "$D/peak_new.out" 2>&1; echo "rc=$?" >> "$D/peak_new.out"
# 2. The new calibration kernels' instruction mix (CUPTI PM sampling through p3lab).
step mix-new
timeout 90 $P -q run $E/cand/peaks/fma.toml --profile full --keep-going \
  --filter 'fp16-wg256-c16-u8' --filter 'fp16-wg1024-c16-u8' --filter 'fp32-wg256-c32-u32' \
  --counters 'sm__inst_executed_pipe_fma_type_fp16.sum' --counters 'TPC.TriageCompute.sm__inst_executed_pipe_fma*' \
  --counters '*pipe_tensor*' --counters 'TPC.TriageCompute.sm__inst_executed_realtime.sum' \
  --out "$D/mix_new" > "$D/mix_new.out" 2>&1; echo "rc=$?" >> "$D/mix_new.out"
# 3. The formulation sweeps (fmax.comp; see its header for the keys).
for s in fmax fmax2 fmax3 fmax_o0; do
  step $s
  timeout 150 $P -q run $E/$s.toml --profile full --no-hw-counters --keep-going --out "$D/$s" > "$D/$s.out" 2>&1; echo "rc=$?" >> "$D/$s.out"
done
# 4. Texture paths x formats, with the hardware counters (l1tex %, SM clock).
step texx
timeout 120 $P -q run $E/texx.toml --profile full --keep-going --out "$D/texx" > "$D/texx.out" 2>&1; echo "rc=$?" >> "$D/texx.out"
# 5. The CUDA and Triton peers, their SASS, and ncu's instruction counts.
step cuda
wait $NVCC
cp /tmp/cuda.sass "$D/cuda.sass"
timeout 60 /tmp/fma_cuda 1081344 2048 20 > "$D/cuda.csv" 2> "$D/cuda.err"
python3 $E/sasscount.py "$D/cuda.sass" > "$D/cuda_sass_counts.csv" 2>&1
step triton-i26
PYTHONUNBUFFERED=1 timeout 100 python3 $E/tri26.py "$D/tri26" > "$D/tri26.csv" 2> "$D/tri26.err"
python3 $E/sasscount.py "$D"/tri26/*.sass > "$D/tri26_sass_counts.csv" 2>&1
step triton-tri
PYTHONUNBUFFERED=1 timeout 150 python3 $E/tri.py "$D/tri" > "$D/triton.csv" 2> "$D/triton.err"
python3 $E/sasscount.py "$D"/tri/*.sass > "$D/triton_sass_counts.csv" 2>&1
step ncu-cuda
ncu --query-metrics --chip gh100 > /tmp/q.txt 2>&1
M=$(python3 $E/ncumetrics.py < /tmp/q.txt); echo "$M" > "$D/ncu_metrics.txt"
timeout 120 ncu --clock-control none --metrics "$M" --csv /tmp/fma_cuda 1081344 2048 1 > "$D/ncu_cuda.csv" 2> "$D/ncu_cuda.err"
step ncu-triton-i26
timeout 90 ncu --clock-control none --metrics "$M" --csv -k regex:fma_chain python3 $E/tri26.py /tmp/tri26n ncu > "$D/ncu_tri26.csv" 2> "$D/ncu_tri26.err"
step done
kill $SMI
