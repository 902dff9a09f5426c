"""NumPy reference for soft_max.toml: ggml's GGML_OP_SOFT_MAX (ggml-cpu's soft_max_f32), in
float64 from the exact bytes the GPU gets.

p3lab runs this in a scratch folder holding x.npy, mask.npy, sinks.npy (the case's resources;
the f16 variants' half-precision mask is their own copy, not this one), dst.in.npy and
params.json, and reads back dst.npy (float32, one value per element of dst).
"""
import json

import numpy as np

p = json.load(open("params.json"))
ne00, ne01, ne02 = (int(p[k]) for k in ("ne00", "ne01", "ne02"))
# The push block holds scale, max_bias, m0 and m1 as float32: round them as the shader sees them.
scale = np.float32(p["scale"]).astype(np.float64)
max_bias = np.float32(p["max_bias"]).astype(np.float64)
has_sinks = int(p["has_sinks"]) != 0

x = np.load("x.npy").astype(np.float64).reshape(ne02, ne01, ne00)
mask = np.load("mask.npy").astype(np.float64).reshape(ne01, ne00)
sinks = np.load("sinks.npy").astype(np.float64)

# ALiBi: head h < n_head_log2 gets m0^(h+1), the others m1^(2(h - n_head_log2) + 1).
n_head_log2 = 1 << int(np.floor(np.log2(ne02)))
m0 = np.float64(np.float32(2.0 ** (-max_bias / n_head_log2)))
m1 = np.float64(np.float32(2.0 ** (-(max_bias / 2.0) / n_head_log2)))
h = np.arange(ne02)
if max_bias > 0:
    slope = np.where(h < n_head_log2, m0 ** (h + 1), m1 ** (2 * (h - n_head_log2) + 1))
else:
    slope = np.ones(ne02)

v = x * scale + slope[:, None, None] * mask[None, :, :]
top = v.max(axis=2, keepdims=True)
if has_sinks:
    top = np.maximum(top, sinks[:, None, None])
e = np.exp(v - top)
total = e.sum(axis=2, keepdims=True)
if has_sinks:
    total = total + np.exp(sinks[:, None, None] - top)
np.save("dst.npy", (e / total).astype(np.float32).reshape(-1))
