#version 450
// p3lab's output check on the GPU (src/measure/gpu_check.rs), built into the binary: compares
// `actual` with `expected` element by element as the host check does (src/check.rs): equal
// bits pass; NaN passes only against NaN; otherwise |a - e| <= tol + rel * |e|, here in fp32.
// It writes the number of mismatches, the first mismatching index and the largest error;
// mode 1 (one invocation) then copies the two elements at the first mismatch.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Actual { uint a[]; };
layout(set = 0, binding = 1) readonly buffer Expected { uint e[]; };
layout(set = 0, binding = 2) buffer Result {
    uint mismatches;
    uint first;        // 0xFFFFFFFF: none
    uint max_err_bits; // fp32 bits of the largest |a - e| (non-negative floats order as uints)
    uint got;
    uint want;
} res;
layout(push_constant) uniform Params {
    uint count;
    uint kind; // 0 f32, 1 u32, 2 i32, 3 f16, 4 u8
    float tol;
    float rel;
    uint mode;
} p;

uint elem_a(uint i) {
    if (p.kind == 3u) return (a[i >> 1] >> ((i & 1u) * 16u)) & 0xFFFFu;
    if (p.kind == 4u) return (a[i >> 2] >> ((i & 3u) * 8u)) & 0xFFu;
    return a[i];
}

uint elem_e(uint i) {
    if (p.kind == 3u) return (e[i >> 1] >> ((i & 1u) * 16u)) & 0xFFFFu;
    if (p.kind == 4u) return (e[i >> 2] >> ((i & 3u) * 8u)) & 0xFFu;
    return e[i];
}

float value(uint bits) {
    if (p.kind == 0u) return uintBitsToFloat(bits);
    if (p.kind == 2u) return float(int(bits));
    if (p.kind == 3u) return unpackHalf2x16(bits).x;
    return float(bits);
}

void main() {
    if (p.mode == 1u) {
        if (gl_GlobalInvocationID.x == 0u && res.first != 0xFFFFFFFFu) {
            res.got = elem_a(res.first);
            res.want = elem_e(res.first);
        }
        return;
    }
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) {
        uint x = elem_a(i);
        uint y = elem_e(i);
        if (x == y) continue;
        float av = value(x);
        float ev = value(y);
        bool ok;
        if (isnan(av) || isnan(ev)) {
            ok = isnan(av) && isnan(ev);
        } else {
            float err = abs(av - ev);
            if (!isnan(err)) atomicMax(res.max_err_bits, floatBitsToUint(err));
            ok = err <= p.tol + p.rel * abs(ev);
        }
        if (!ok) {
            atomicAdd(res.mismatches, 1u);
            atomicMin(res.first, i);
        }
    }
}
