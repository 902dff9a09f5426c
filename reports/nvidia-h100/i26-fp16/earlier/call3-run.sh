#!/usr/bin/env bash
# Issue 26, third device call: per-thread m/c (the operand shape of issue 26's Triton kernel) in
# Vulkan and CUDA, the Triton kernel itself with its SASS and instruction counts, the
# candidate calibration (cand/) beside the built-in one, and texture counters.
# usage: bash .gpu/exp/run2.sh OUTDIR
set -u
D=${1:-/tmp/i26z}
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
step peak-builtin
timeout 90 $P -q peak --filter 'fp16-*' --filter 'fp32-*' --out "$D/peak_builtin" > "$D/peak_builtin.out" 2>&1; echo "rc=$?" >> "$D/peak_builtin.out"
step peak-cand
timeout 150 $P -q peak --peaks-dir $E/cand/peaks --filter 'fp16-*' --filter 'fp32-*' --filter 'fp64-*' --out "$D/peak_cand" > "$D/peak_cand.out" 2>&1; echo "rc=$?" >> "$D/peak_cand.out"
step fmax3
timeout 120 $P -q run $E/fmax3.toml --profile full --no-hw-counters --keep-going --out "$D/fmax3" > "$D/fmax3.out" 2>&1; echo "rc=$?" >> "$D/fmax3.out"
step mix3
timeout 90 $P -q run $E/fmax3.toml --profile full --keep-going \
  --filter 'h2-op0-mc0-d0-x0-fc0-c16-u8-wg256' --filter 'h2-op0-mc6-d0-x0-fc0-c16-u8-wg256' --filter 'h2-op0-mc9-d0-x0-fc0-c16-u8-wg256' \
  --counters 'sm__inst_executed_pipe_fma_type_fp16.sum' --counters 'TPC.TriageCompute.sm__inst_executed_pipe_fma*' \
  --counters '*pipe_tensor*' --counters '*hfma2*' --counters 'TPC.TriageCompute.sm__inst_executed_realtime.sum' \
  --out "$D/mix3" > "$D/mix3.out" 2>&1; echo "rc=$?" >> "$D/mix3.out"
step triton-tri
PYTHONUNBUFFERED=1 timeout 150 python3 $E/tri.py "$D/tri" > "$D/triton.csv" 2> "$D/triton.err"
python3 $E/sasscount.py "$D"/tri/*.sass > "$D/triton_sass_counts.csv" 2>&1
step cuda
wait $NVCC
cp /tmp/cuda.sass "$D/cuda.sass"
timeout 60 /tmp/fma_cuda 1081344 2048 20 > "$D/cuda.csv" 2> "$D/cuda.err"
python3 $E/sasscount.py "$D/cuda.sass" > "$D/cuda_sass_counts.csv" 2>&1
step triton-i26
PYTHONUNBUFFERED=1 timeout 100 python3 $E/tri26.py "$D/tri26" > "$D/tri26.csv" 2> "$D/tri26.err"
python3 $E/sasscount.py "$D"/tri26/*.sass > "$D/tri26_sass_counts.csv" 2>&1
step ncu-cuda
ncu --query-metrics --chip gh100 > /tmp/q.txt 2>&1
M=$(python3 $E/ncumetrics.py < /tmp/q.txt)
timeout 90 ncu --clock-control none --metrics "$M" --csv /tmp/fma_cuda 1081344 2048 1 > "$D/ncu_cuda.csv" 2> "$D/ncu_cuda.err"
step ncu-triton-i26
timeout 90 ncu --clock-control none --metrics "$M" --csv -k regex:fma_chain python3 $E/tri26.py /tmp/tri26n ncu > "$D/ncu_tri26.csv" 2> "$D/ncu_tri26.err"
step done
kill $SMI
