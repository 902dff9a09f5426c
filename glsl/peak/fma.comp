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
// at another precision fails the check. m and c must stay unknown to the compiler: with
// literal or specialization-constant m and c, a * m + c written out let the NVIDIA driver fold
// the unrolled steps into fewer (issue 26: 485 "TFLOP/s" on an H100, check still passing).
//
// The loop body is UNROLL copies of the CHAINS FMAs, so the loop counter, compare and branch
// cost one issue slot in UNROLL * CHAINS (issue 26: with the body unrolled only by the
// driver, the FP32 kernel spent about 0.8 slots per iteration of 16 FMAs on the loop and
// reached ~95 % of 128 FFMA/clk/SM; an FFMA needs an issue slot of its own every cycle, so
// FP32 needs 512 FMAs per loop trip (32 chains x 32) to reach 98.5 %). A remainder loop keeps
// any `iters` exact.
//
// FP16 (issue 26, H100, driver 580): an HFMA2 on the FMA pipe occupies both of its halves
// (fmaheavy and fmalite count it each), so HFMA2 alone runs at the FP32 flop rate, in CUDA
// too. NVIDIA's compilers also issue HFMA2 to the tensor pipe (HFMA2.MMA), which doubles the
// packed rate, but in issue 26's kernels (GLSL and CUDA) only when m and c were plain packed
// registers: chains whose m and c were one half broadcast to both (f16vec2(float16_t(x)),
// SASS `R.H0_H0`), literals or specialization constants kept every HFMA2 on the FMA pipe
// (66.8 TFLOP/s, the FP32 rate). So under HALF m and c are made per thread from the data,
// m = a[0] * z + 0.5 with z = 0 known only at run time: a packed register whose halves the
// compiler cannot prove equal (one pair for all chains: a pair per chain costs registers and
// ran at 80-86 TFLOP/s). The driver then splits the HFMA2s evenly between the FMA and tensor
// pipes (CUPTI: half of them on the FMA pipe, the tensor pipe 95 % busy): 129.8 TFLOP/s,
// 1.97x FP32. The SPIR-V holds one GLSL.std.450 Fma on %v2half per chain and iteration and
// no conversion inside the loop.
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
#elif defined(HALF)
    float mf = float(pc.one) / float(pc.two);
    T m;                            // set from the data below
    T c;
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
#ifdef HALF
    // m = (0.5, 0.5) and c = (0.5, 0.5), as packed registers (see the header): z is 0 at run
    // time (mf = 0.5), a[0] * 0 + 0.5 is exact.
    T z = T(S(mf - 0.5));
    m = fma(a[0], z, T(S(0.5)));
    c = T(S(1.0)) - m;
#endif
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
