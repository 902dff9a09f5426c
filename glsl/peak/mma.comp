#version 450
// Peak calibration: tensor-core (cooperative-matrix) multiply-add throughput, D = A·B + C at
// subgroup scope (GL_KHR_cooperative_matrix, SPIR-V OpCooperativeMatrixMulAddKHR; NVIDIA HMMA
// and IMMA, AMD WMMA, Intel XMX). One multiply-add of an MxK by a KxN matrix counts
// 2·M·N·K operations, as vkpeak and cuBLAS count them.
//
// Defines: TA (A and B's element type; with BF16 defined, bfloat16_t via GL_EXT_bfloat16), TC (the accumulator's), M N K (the shape; the device
// must report it: the variant `requires` it), CHAINS independent accumulators per subgroup
// (they hide the multiply-add's latency), UNROLL (copies of the chains per loop trip), and
// SIGNED (1 where TA is a signed or floating-point type).
//
// The values never leave what every type holds exactly. A is filled with `one` (1) and, for
// signed and floating types, a second A with `one - two` (-1); B with `one`; accumulator k
// starts at k. Every element of A·B is then +-K, so with SIGNED the chains alternate +K and
// -K and end at k + K (odd count of multiply-adds) or k (even); without it (u8) they grow by K
// each time and wrap like the 32-bit accumulator. The fill values come from push constants,
// so no compiler can fold them, and each multiply-add's input is the chain itself. Every
// element of every chain is compared (result.glsl): a loop one trip short or long fails.
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_control_flow_attributes : require
#ifdef BF16
#extension GL_EXT_bfloat16 : require
#endif

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

#ifndef CHAINS
#define CHAINS 4
#endif
#ifndef UNROLL
#define UNROLL 4
#endif

#define MAT_A coopmat<TA, gl_ScopeSubgroup, M, K, gl_MatrixUseA>
#define MAT_B coopmat<TA, gl_ScopeSubgroup, K, N, gl_MatrixUseB>
#define MAT_C coopmat<TC, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>

void main() {
    p3_probe_record();
    uint id = gl_GlobalInvocationID.x;
    int one = int(pc.one);
    MAT_A ap = MAT_A(TA(float(one)));
    MAT_B b = MAT_B(TA(float(one)));
#if SIGNED
    MAT_A an = MAT_A(TA(float(one - int(pc.two))));
#endif
    MAT_C c[CHAINS];
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        c[k] = MAT_C(TC(k));
    }
    uint i = 0u;
#if SIGNED
    // Two multiply-adds per step (+K then -K): UNROLL steps per trip.
    for (; i + uint(2 * UNROLL) <= pc.iters; i += uint(2 * UNROLL)) {
        [[unroll]] for (int u = 0; u < UNROLL; ++u) {
            [[unroll]] for (int k = 0; k < CHAINS; ++k) {
                c[k] = coopMatMulAdd(ap, b, c[k]);
            }
            [[unroll]] for (int k = 0; k < CHAINS; ++k) {
                c[k] = coopMatMulAdd(an, b, c[k]);
            }
        }
    }
    for (; i + 2u <= pc.iters; i += 2u) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            c[k] = coopMatMulAdd(ap, b, c[k]);
        }
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            c[k] = coopMatMulAdd(an, b, c[k]);
        }
    }
    if (i < pc.iters) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            c[k] = coopMatMulAdd(ap, b, c[k]);
        }
    }
#else
    for (; i + uint(UNROLL) <= pc.iters; i += uint(UNROLL)) {
        [[unroll]] for (int u = 0; u < UNROLL; ++u) {
            [[unroll]] for (int k = 0; k < CHAINS; ++k) {
                c[k] = coopMatMulAdd(ap, b, c[k]);
            }
        }
    }
    for (; i < pc.iters; ++i) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            c[k] = coopMatMulAdd(ap, b, c[k]);
        }
    }
#endif
    uint bad = 0u;
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
#if SIGNED
        TC want = TC(k + ((pc.iters & 1u) == 1u ? K : 0));
#else
        TC want = TC(uint(k) + pc.iters * uint(K));
#endif
        for (int e = 0; e < c[k].length(); ++e) {
            bad += c[k][e] != want ? 1u : 0u;
        }
    }
    peak_result_u(id, bad, 0u);
}
