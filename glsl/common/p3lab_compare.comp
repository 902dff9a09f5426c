#version 450
// p3lab's output check on the GPU (src/measure/gpu_check.rs), built into the binary: compares
// `actual` with `expected` element by element as the host check does (src/check.rs): equal
// bits pass; NaN passes only against NaN; otherwise |a - e| <= tol + rel * |e|, here in fp32.
// Mode 0 writes the number of mismatches, the first mismatching index and the largest absolute
// and relative errors; mode 2 then finds the first index where each largest error is reached;
// mode 1 (one invocation) copies the elements at those three indices.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Actual { uint a[]; };
layout(set = 0, binding = 1) readonly buffer Expected { uint e[]; };
layout(set = 0, binding = 2) buffer Result {
    uint mismatches;
    uint first;        // 0xFFFFFFFF: none
    uint max_err_bits; // fp32 bits of the largest |a - e| (non-negative floats order as uints)
    uint got;
    uint want;
    uint max_rel_bits; // fp32 bits of the largest |a - e| / |e| (+inf where e is 0)
    uint abs_at;       // the first index of the largest |a - e| (0xFFFFFFFF: none)
    uint rel_at;       // the first index of the largest relative error
    uint abs_got;
    uint abs_want;
    uint rel_got;
    uint rel_want;
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

// |a - e| and |a - e| / |e| of two non-NaN values, as fp32 bits (0 for equal values; +inf
// where e is 0 and a is not).
uvec2 errors(float av, float ev) {
    float err = abs(av - ev);
    float rel = err == 0.0 ? 0.0 : (ev == 0.0 ? uintBitsToFloat(0x7F800000u) : err / abs(ev));
    return uvec2(floatBitsToUint(err), floatBitsToUint(rel));
}

void main() {
    if (p.mode == 1u) {
        if (gl_GlobalInvocationID.x == 0u) {
            if (res.first != 0xFFFFFFFFu) {
                res.got = elem_a(res.first);
                res.want = elem_e(res.first);
            }
            if (res.abs_at != 0xFFFFFFFFu) {
                res.abs_got = elem_a(res.abs_at);
                res.abs_want = elem_e(res.abs_at);
            }
            if (res.rel_at != 0xFFFFFFFFu) {
                res.rel_got = elem_a(res.rel_at);
                res.rel_want = elem_e(res.rel_at);
            }
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
        if (p.mode == 2u) {
            // Where the largest errors mode 0 found are first reached (same arithmetic).
            if (isnan(av) || isnan(ev)) continue;
            uvec2 er = errors(av, ev);
            if (er.x == res.max_err_bits && er.x != 0u && !isnan(uintBitsToFloat(er.x))) {
                atomicMin(res.abs_at, i);
            }
            if (er.y == res.max_rel_bits && er.y != 0u && !isnan(uintBitsToFloat(er.y))) {
                atomicMin(res.rel_at, i);
            }
            continue;
        }
        bool ok;
        if (isnan(av) || isnan(ev)) {
            ok = isnan(av) && isnan(ev);
        } else {
            float err = abs(av - ev);
            uvec2 er = errors(av, ev);
            if (!isnan(err)) {
                atomicMax(res.max_err_bits, er.x);
                atomicMax(res.max_rel_bits, er.y);
            }
            ok = err <= p.tol + p.rel * abs(ev);
        }
        if (!ok) {
            atomicAdd(res.mismatches, 1u);
            atomicMin(res.first, i);
        }
    }
}
