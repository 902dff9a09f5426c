#version 450
// Peak calibration: integer multiply-add throughput, int32 (default), int16 (INT16: packed
// u16vec2, two lanes) or int64 (INT64). CHAINS independent chains per thread,
// x <- x * a + b with a = pc.one (1) and b = pc.two (2) from push constants, ITERS iterations.
// int64 has two forms: by default the multiplier's high word is unknown to the compiler (a
// full 64 x 64-bit multiply-add); with MUL32 the multiplier and the addend are 32-bit values
// zero-extended to 64 bits (a 64 x 32-bit multiply-add, vkpeak's int64 kernel: its
// `c = a * c + b` with a = int64_t(gl_GlobalInvocationID.x), b = int64_t(gl_LocalInvocationID.x)).
// The chain values are 64-bit in both forms and checked whole, high word included.
// Each chain (and lane) starts at START(id * 7 + k * 1000003), so after the loop
// x_k - START(k * 1000003) must equal id * 7 + iters * 2 (wrapping at the type's width) for
// every chain and lane: the self-check (glsl/peak/result.glsl; sink[1025] is the number of
// chains that differ), which catches a loop that ran once too few or too many times.
//
// The loop body is UNROLL copies of the CHAINS multiply-adds (see fma.comp: the loop's own
// instructions then cost one slot in UNROLL * CHAINS).
//
// VKPEAK (with INT64): vkpeak's int64 kernel as it is written (vkpeak.cpp glsl_int64_p1_data and
// _dual_data): int64_t, a = int64_t(gl_GlobalInvocationID.x) and b =
// int64_t(gl_LocalInvocationID.x) (per-thread values, high words zero, not push constants),
// `c = a * c + b`, chain 0 starting at a and chain 1 at b (vkpeak's single form is CHAINS = 1,
// its dual form CHAINS = 2; more chains start at a + k), 16 multiply-adds per loop iteration
// (16 / CHAINS per chain, interleaved as vkpeak's REPEAT_8(c0 = ..; c1 = ..;)), and a signed
// loop counter compared with the specialization constant VK_LOOP (constant_id 1: the trip
// count is known when the pipeline is made, as vkpeak's `loop`). The self-check: every chain must
// equal f^n(start), f(x) = a x + b, n = loop * 16 / CHAINS, f^n computed by squaring in 32-bit
// halves (umulExtended, uaddCarry), so a kernel whose 64-bit arithmetic is wrong (truncated to
// 32 bits, a dropped carry) fails it even where the loop's and the check's 64-bit code would
// agree. A loop run once too few or too many times fails it in the threads with an odd
// multiplier (f is then a bijection; with an even one, f^n converges to its fixed point).
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require
#if defined(INT16)
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#define T u16vec2
#define START(v) T(uint16_t(v), uint16_t((v) + 13u))
#define SPLAT(v) T(uint16_t(v))
#define NE(p, q) any(notEqual(p, q))
#elif defined(INT64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define T uint64_t
// A high word in every value: a kernel that computes in 32 bits fails the check. The low
// word starts at 0xffffff00 + v, so the start of every chain with v >= 256 carries into the
// high word, and in the loop so do the adds of chain 0 in the first threads (v = id * 7 < 256):
// a kernel that drops a carry fails the check too.
#define START(v) ((T(0x9e3779b9u) << 32) + T(0xffffff00u) + T(v))
#define SPLAT(v) T(v)
#define NE(p, q) ((p) != (q))
#else
#define T uint
#define START(v) (v)
#define SPLAT(v) (v)
#define NE(p, q) ((p) != (q))
#endif

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;
#if defined(INT64) && defined(VKPEAK)
layout(constant_id = 1) const int VK_LOOP = 1;
#endif

#ifndef CHAINS
#define CHAINS 8
#endif
// STEPS (when given): the multiply-adds one loop iteration holds, all chains together
// (vkpeak: 16), i.e. UNROLL = STEPS / CHAINS (STEPS a multiple of CHAINS).
#if !defined(UNROLL) && defined(STEPS)
#define UNROLL ((STEPS) / (CHAINS))
#endif
#ifndef UNROLL
#define UNROLL 4
#endif

#if defined(INT64) && defined(VKPEAK)
// x * y and x + y modulo 2^64 on (low, high) 32-bit halves: the check's arithmetic, independent
// of the 64-bit code the loop compiles to.
uvec2 vk_mul(uvec2 x, uvec2 y) {
    uint hi, lo;
    umulExtended(x.x, y.x, hi, lo);
    return uvec2(lo, hi + x.x * y.y + x.y * y.x);
}
uvec2 vk_add(uvec2 x, uvec2 y) {
    uint carry;
    uint lo = uaddCarry(x.x, y.x, carry);
    return uvec2(lo, x.y + y.y + carry);
}

void main() {
    p3_probe_record();
    const uint gx = gl_GlobalInvocationID.x;
    const uint lx = gl_LocalInvocationID.x;
    int64_t a = int64_t(gx);
    int64_t b = int64_t(lx);
    int64_t c[CHAINS];
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        c[k] = k == 0 ? a : (k == 1 ? b : a + int64_t(k));
    }
    const int loop = VK_LOOP;
    for (int i = 0; i < loop; i++) {
        [[unroll]] for (int u = 0; u < 16 / CHAINS; ++u) {
            [[unroll]] for (int k = 0; k < CHAINS; ++k) {
                c[k] = a * c[k] + b;
            }
        }
    }
    // f^n = (fa, fb): x -> fa x + fb, by squaring p = f^(2^j).
    uint n = uint(loop) * uint(16 / CHAINS);
    uvec2 fa = uvec2(1u, 0u), fb = uvec2(0u), pa = uvec2(gx, 0u), pb = uvec2(lx, 0u);
    while (n != 0u) {
        if ((n & 1u) != 0u) {
            fb = vk_add(vk_mul(pa, fb), pb);
            fa = vk_mul(pa, fa);
        }
        pb = vk_add(vk_mul(pa, pb), pb);
        pa = vk_mul(pa, pa);
        n >>= 1u;
    }
    uint bad = 0u;
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        uvec2 x0 = k == 0 ? uvec2(gx, 0u) : (k == 1 ? uvec2(lx, 0u) : vk_add(uvec2(gx, 0u), uvec2(uint(k), 0u)));
        bad += any(notEqual(unpack32(uint64_t(c[k])), vk_add(vk_mul(fa, x0), fb))) ? 1u : 0u;
    }
    peak_result_u(gx, bad, 0u);
}
#else
void main() {
    p3_probe_record();
    uint id = gl_GlobalInvocationID.x;
#if defined(INT64) && defined(MUL32)
    // A 32-bit multiplier zero-extended: its high word is known to be 0, so a 64 x 32-bit
    // multiply does (the chain value x stays 64-bit: x.hi * a is still computed).
    T a = T(pc.one);
#elif defined(INT64)
    // A multiplier whose high word the compiler cannot prove zero (pc.two >> 2 is 0): a full
    // 64-bit multiply, not a 64 x 32 one.
    T a = T(pc.one) | (T(pc.two >> 2u) << 32);
#else
    T a = SPLAT(pc.one);
#endif
    T b = SPLAT(pc.two);
    T x[CHAINS];
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        x[k] = START(id * 7u + uint(k) * 1000003u);
    }
    uint i = 0u;
    for (; i + uint(UNROLL) <= pc.iters; i += uint(UNROLL)) {
        [[unroll]] for (int u = 0; u < UNROLL; ++u) {
            [[unroll]] for (int k = 0; k < CHAINS; ++k) {
                x[k] = x[k] * a + b;
            }
        }
    }
    for (; i < pc.iters; ++i) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            x[k] = x[k] * a + b;
        }
    }
    T want = SPLAT(id * 7u) + SPLAT(pc.iters) * b;
    // The number of chains (lanes) whose difference from their start is not want.
    uint bad = 0u;
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        bad += NE(x[k] - START(uint(k) * 1000003u), want) ? 1u : 0u;
    }
    peak_result_u(id, bad, 0u);
}
#endif
