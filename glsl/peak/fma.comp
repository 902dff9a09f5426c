#version 450
// Peak calibration: FP32 (or FP16 with HALF, packed f16vec2; or FP64 with DOUBLE) fused
// multiply-add throughput. CHAINS independent accumulators per thread hide the FMA latency;
// ITERS iterations of CHAINS FMAs each, every lane of an f16vec2 its own value.
//
// Each chain is a <- a * m + c with m = pc.one / pc.two (1 / 2) and c = 1 - m, both from push
// constants (so nothing folds at compile time): with m = 0.5 every chain converges to exactly
// 1.0 from its own start (1 + (a0 - 1) * 2^-i), in FP16, FP32 and FP64 alike, after 32
// iterations at most (64 in FP64). The sum of the chains must then be CHAINS * LANES in every
// invocation (glsl/peak/result.glsl): a kernel whose loop was shortened, dropped or computed
// at another precision fails the check.
//
// The loop body is UNROLL copies of the CHAINS FMAs, so the loop counter, compare and branch
// cost one issue slot in UNROLL * CHAINS (issue 26: with the body unrolled only by the
// driver, the FP32 kernel spent about 0.8 slots per iteration of 16 FMAs on the loop and
// reached ~95 % of 128 FFMA/clk/SM). A remainder loop keeps any `iters` exact.
//
// FP16 stays packed through the loop: the SPIR-V (shaderc, -O) holds one GLSL.std.450 Fma on
// %v2half per chain and iteration and no conversion inside the loop (a mul-add written out
// comes out as the same Fma). Whether the driver makes it one HFMA2 is the driver's: issue 26
// saw FP16 at the FP32 rate on an H100, which the unrolled loop alone may not change.
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require
#if defined(HALF)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define T f16vec2
#define S float16_t
#elif defined(DOUBLE)
#define T double
#define S double
#else
#define T float
#define S float
#endif

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

#ifndef CHAINS
#define CHAINS 8
#endif
#ifndef LANES
#define LANES 1
#endif
#ifndef UNROLL
#define UNROLL 8
#endif

void main() {
    p3_probe_record();
#ifdef DOUBLE
    double mf = double(pc.one) / double(pc.two);
    T m = mf;
    T c = 1.0LF - mf;
#else
    float mf = float(pc.one) / float(pc.two);
    T m = T(S(mf));
    T c = T(S(1.0 - mf));
#endif
    T a[CHAINS];
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        // Distinct starts per thread and chain (and lane), in [1, 9.5]: exact in FP16 too.
        float base = 1.0 + float((gl_LocalInvocationIndex + uint(k)) % 64u) / 8.0;
#ifdef HALF
        a[k] = T(S(base), S(base + 0.5));
#else
        a[k] = T(base);
#endif
    }
    uint i = 0u;
    for (; i + uint(UNROLL) <= pc.iters; i += uint(UNROLL)) {
        [[unroll]] for (int u = 0; u < UNROLL; ++u) {
            [[unroll]] for (int k = 0; k < CHAINS; ++k) {
                a[k] = fma(a[k], m, c);
            }
        }
    }
    for (; i < pc.iters; ++i) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            a[k] = fma(a[k], m, c);
        }
    }
    float s = 0.0;
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
#ifdef HALF
        s += float(a[k].x) + float(a[k].y);
#else
        s += float(a[k]);
#endif
    }
    peak_result(gl_GlobalInvocationID.x, s, float(CHAINS * LANES), 0.0);
}
