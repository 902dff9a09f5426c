"""NumPy reference for mul_mm.toml: D[n, m] = sum_k A[m, k] * B[n, k] as llama.cpp's fp16
shader-core matmul computes it: A and B rounded to half precision (the shader stages them in
shared memory as float16_t), each product exact in float32 (11-bit by 11-bit significands),
summed in float32.

p3lab runs this in a scratch folder holding a.npy, b.npy (the case's resources, f32: the f16
variants' weights are their own copy of the same numbers, so they round to the same halves),
d.in.npy and params.json, and reads back d.npy (float32, N x M values).
"""
import json

import numpy as np

p = json.load(open("params.json"))
M, N, K = (int(p[k]) for k in ("M", "N", "K"))
a = np.load("a.npy").reshape(M, K).astype(np.float16).astype(np.float32)
b = np.load("b.npy").reshape(N, K).astype(np.float16).astype(np.float32)
np.save("d.npy", (b @ a.T).astype(np.float32).reshape(-1))
