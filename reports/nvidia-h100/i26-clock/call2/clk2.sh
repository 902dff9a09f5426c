#!/bin/bash
# Issue 26: the SM clock during counter batches, beside nvidia-smi's, with the fix.
O=/tmp/i26-clock; mkdir -p $O
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv -lms 20 > $O/smi.csv &
SMI=$!
.gpu/p3lab run peaks/fma.toml --profile full --out $O/fma -v > $O/fma.out 2> $O/fma.log
.gpu/p3lab run peaks/tensor.toml --profile full --filter 'tensor_f16_f32-16x16x16-*' --out $O/tensor -v > $O/tensor.out 2> $O/tensor.log
.gpu/p3lab run scenarios/write_pattern.toml scenarios/coalescing.toml --out $O/suite -v > $O/suite.out 2> $O/suite.log
kill $SMI
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/smi.csv
tar czf $OUT/clk2.tgz -C /tmp i26-clock
