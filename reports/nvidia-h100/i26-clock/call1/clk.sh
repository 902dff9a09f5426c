#!/bin/bash
# Issue 26: does CUPTI's gpc__cycles_elapsed.avg.per_second read the SM clock on FP16 rows?
set -x
O=/tmp/o; mkdir -p $O
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,clocks_event_reasons.active --format=csv -lms 20 > $O/smi.csv &
SMI=$!
C="--counters gpc__cycles_elapsed.avg.per_second --counters sm__cycles_elapsed.avg.per_second --counters sys__cycles_elapsed.avg.per_second --counters gpu__time_duration.sum --counters sm__cycles_active.avg"
.gpu/p3lab run peaks/fma.toml --out $O/fma $C -v > $O/fma.out 2> $O/fma.log
.gpu/p3lab run peaks/tensor.toml --filter 'tensor_f16_f32-16x16x16-*' --out $O/tensor $C -v > $O/tensor.out 2> $O/tensor.log
.gpu/p3lab run peaks/fma.toml --out $O/fma2 -v > $O/fma2.out 2> $O/fma2.log
kill $SMI
tar czf $OUT/clk.tgz -C /tmp o
