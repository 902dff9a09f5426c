#!/usr/bin/env bash
# Issue 26 sweep, one device call (repo root; .gpu/p3lab stripped release binary; .gpu/exp here).
# usage: bash .gpu/exp/run.sh OUTDIR
set -u
D=${1:-/tmp/i26x}
E=.gpu/exp
P=.gpu/p3lab
mkdir -p "$D"
t0=$(date +%s)
step() { echo "== $(( $(date +%s) - t0 ))s $*" | tee -a "$D/steps.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv > "$D/machine.txt" 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE >> "$D/machine.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 250 > "$D/clocks.csv" 2>&1 &
SMI=$!
step nvcc
( nvcc -O3 -arch=sm_90 -o /tmp/fma_cuda $E/fma_cuda.cu > "$D/nvcc.log" 2>&1 && cuobjdump -sass /tmp/fma_cuda > "$D/cuda.sass" 2>&1 ) &
NVCC=$!
$P devices > "$D/devices.txt" 2>&1
step peak-current
timeout 120 $P -q peak --filter 'fp16-*' --filter 'fp32-*' --out "$D/peak" > "$D/peak.out" 2>&1; echo "rc=$?" >> "$D/peak.out"
step fmax
timeout 200 $P -q run $E/fmax.toml --profile full --no-hw-counters --keep-going --out "$D/fmax" > "$D/fmax.out" 2>&1; echo "rc=$?" >> "$D/fmax.out"
step fmax_o0
timeout 60 $P -q run $E/fmax_o0.toml --profile full --no-hw-counters --keep-going --out "$D/fmax_o0" > "$D/fmax_o0.out" 2>&1; echo "rc=$?" >> "$D/fmax_o0.out"
step texx
timeout 90 $P -q run $E/texx.toml --profile full --no-hw-counters --keep-going --out "$D/texx" > "$D/texx.out" 2>&1; echo "rc=$?" >> "$D/texx.out"
step counters-list
$P counters --format csv > /tmp/counters.csv 2>&1; grep -i "pipe\|inst_executed\|cycles_elapsed" /tmp/counters.csv > "$D/counters_pipe.csv"
step mix
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=/tmp/nvc __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
mkdir -p /tmp/nvc
timeout 120 $P -q run $E/fmax.toml --profile full --keep-going --dump-ir \
  --filter 'h2-op0-mc0-d0-x0-fc0-c16-u8-wg256' --filter 'h2-op0-mc2-d0-x0-fc0-c16-u8-wg256' \
  --filter 'h1-op0-mc0-d0-x0-fc0-c16-u8-wg256' --filter 'h4-op0-mc0-d0-x0-fc0-c16-u8-wg256' \
  --filter 'f1-op0-mc0-d0-x0-fc0-c16-u8-wg256' --filter 'f1-op0-mc2-d0-x0-fc0-c16-u8-wg256' \
  --filter 'h2-op0-mc0-d0-x1-fc0-c16-u8-wg256' \
  --counters 'sm__inst_executed_pipe_fma_type_fp16.sum' --counters 'TPC.TriageCompute.sm__inst_executed_pipe_*' \
  --counters 'TPC.TriageCompute.sm__inst_executed_realtime.sum' --counters '*pipe_shared*' --counters '*pipe_fp16*' \
  --out "$D/mix" > "$D/mix.out" 2>&1; echo "rc=$?" >> "$D/mix.out"
unset __GL_SHADER_DISK_CACHE __GL_SHADER_DISK_CACHE_PATH __GL_SHADER_DISK_CACHE_SKIP_CLEANUP
step scancache
ls -laR /tmp/nvc > "$D/nvcache_ls.txt" 2>&1
timeout 60 python3 $E/scancache.py /tmp/nvc /tmp/nvcelf > "$D/nvcache_scan.txt" 2>&1
mkdir -p "$D/nvcelf"; cp /tmp/nvcelf/*.txt "$D/nvcelf/" 2>/dev/null
tar czf "$D/nvcache.tgz" -C /tmp nvc 2>/dev/null
step cuda
wait $NVCC
timeout 60 /tmp/fma_cuda 1081344 2048 20 > "$D/cuda.csv" 2> "$D/cuda.err"
python3 $E/sasscount.py "$D/cuda.sass" > "$D/cuda_sass_counts.csv" 2>&1
step triton
PYTHONUNBUFFERED=1 timeout 120 python3 $E/tri.py "$D/tri" > "$D/triton.csv" 2> "$D/triton.err"
python3 $E/sasscount.py "$D"/tri/*.sass > "$D/triton_sass_counts.csv" 2>&1
step ncu-cuda
ncu --query-metrics --chip gh100 > /tmp/q.txt 2>&1
M=$(python3 $E/ncumetrics.py < /tmp/q.txt); echo "$M" > "$D/ncu_metrics.txt"
timeout 90 ncu --clock-control none --metrics "$M" --csv /tmp/fma_cuda 1081344 2048 1 > "$D/ncu_cuda.csv" 2> "$D/ncu_cuda.err"
step ncu-triton
timeout 90 ncu --clock-control none --metrics "$M" --csv -k regex:fma_chain python3 $E/tri.py /tmp/trin ncu > "$D/ncu_triton.csv" 2> "$D/ncu_triton.err"
step done
kill $SMI
