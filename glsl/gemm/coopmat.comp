#version 450
// GEMM on the tensor cores: C (fp32) = A · B with A and B fp16, row-major, n x n, through
// GL_KHR_cooperative_matrix (16x16x16 fp16 x fp16 + fp32 multiply-adds at subgroup scope).
//
// A workgroup of SG_M x SG_N subgroups of 32 computes a BM x BN block of C (BM = SG_M * FM *
// 16, BN = SG_N * FN * 16); each subgroup an (FM * 16) x (FN * 16) part of it as FM x FN
// accumulator matrices. For each step of BK along k, the workgroup copies A's BM x BK block
// and B's BK x BN block into shared memory (16 bytes per load, consecutive invocations on
// consecutive addresses), and after a barrier each subgroup loads its FM fragments of A and FN
// of B from there and does FM x FN multiply-adds per 16 of k. The next step's blocks are
// loaded into registers before those multiply-adds and stored after them. The rows of the
// shared blocks are padded by 8 halves (16 bytes) so the fragment loads spread over the
// banks. The accumulators go straight from registers to C.
//
// n must be a multiple of BM, BN and BK (scenarios/gemm_tensor.toml keeps it so): no partial
// tiles. Every element of C sums its k terms in fp32 in the tensor cores' order; the check's
// tolerance covers any order (the scenario file says why).
#include "p3lab.glsl"
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_control_flow_attributes : require

#ifndef SG_M
#define SG_M 2
#endif
#ifndef SG_N
#define SG_N 2
#endif
#ifndef FM
#define FM 2
#endif
#ifndef FN
#define FN 2
#endif
#ifndef BK
#define BK 32
#endif
#define BM (SG_M * FM * 16)
#define BN (SG_N * FN * 16)
#define THREADS (SG_M * SG_N * 32)
// Shared rows with 8 halves of padding.
#define SA (BK + 8)
#define SB (BN + 8)

layout(local_size_x = THREADS) in;

// 8 halves per uvec4.
layout(set = 0, binding = 0, std430) readonly buffer MatA { uvec4 A[]; };
layout(set = 0, binding = 1, std430) readonly buffer MatB { uvec4 B[]; };
layout(set = 0, binding = 2, std430) writeonly buffer MatC { float C[]; };
layout(push_constant) uniform Sizes { uint M; uint N; uint K; } pc;

// The blocks in shared memory as uvec4 (8 halves each): one 16-byte store per global load;
// the fragment loads read them as halves (element and stride in uvec4 units).
shared uvec4 As[BM * SA / 8];
shared uvec4 Bs[BK * SB / 8];

// uvec4 loads per invocation per block.
#define LA (BM * BK / 8 / THREADS)
#define LB (BK * BN / 8 / THREADS)

void main() {
    p3_probe_record();
    uint t = gl_LocalInvocationID.x;
    uint sg = t / 32u;
    uint sgm = sg / uint(SG_N);
    uint sgn = sg % uint(SG_N);
    uint row0 = gl_WorkGroupID.y * uint(BM);
    uint col0 = gl_WorkGroupID.x * uint(BN);

    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[FM][FN];
    [[unroll]] for (int i = 0; i < FM; ++i) {
        [[unroll]] for (int j = 0; j < FN; ++j) {
            acc[i][j] = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
        }
    }

    // The next blocks travel in registers while the current ones are multiplied: their
    // global loads are in flight during the multiply-adds.
    uvec4 ra[LA];
    uvec4 rb[LB];
    [[unroll]] for (int l = 0; l < LA; ++l) {
        uint q = t + uint(l * THREADS);
        uint r = q / uint(BK / 8);
        ra[l] = A[((row0 + r) * pc.K) / 8u + q % uint(BK / 8)];
    }
    [[unroll]] for (int l = 0; l < LB; ++l) {
        uint q = t + uint(l * THREADS);
        uint r = q / uint(BN / 8);
        rb[l] = B[(r * pc.N + col0) / 8u + q % uint(BN / 8)];
    }

    for (uint k0 = 0u; k0 < pc.K; k0 += uint(BK)) {
        [[unroll]] for (int l = 0; l < LA; ++l) {
            uint q = t + uint(l * THREADS);
            As[(q / uint(BK / 8)) * uint(SA / 8) + q % uint(BK / 8)] = ra[l];
        }
        [[unroll]] for (int l = 0; l < LB; ++l) {
            uint q = t + uint(l * THREADS);
            Bs[(q / uint(BN / 8)) * uint(SB / 8) + q % uint(BN / 8)] = rb[l];
        }
        barrier();
        uint k1 = k0 + uint(BK);
        if (k1 < pc.K) {
            [[unroll]] for (int l = 0; l < LA; ++l) {
                uint q = t + uint(l * THREADS);
                uint r = q / uint(BK / 8);
                ra[l] = A[((row0 + r) * pc.K + k1) / 8u + q % uint(BK / 8)];
            }
            [[unroll]] for (int l = 0; l < LB; ++l) {
                uint q = t + uint(l * THREADS);
                uint r = q / uint(BN / 8);
                rb[l] = B[((k1 + r) * pc.N + col0) / 8u + q % uint(BN / 8)];
            }
        }
        [[unroll]] for (int kk = 0; kk < BK; kk += 16) {
            coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> fa[FM];
            coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> fb[FN];
            [[unroll]] for (int i = 0; i < FM; ++i) {
                uint r = (sgm * uint(FM) + uint(i)) * 16u;
                coopMatLoad(fa[i], As, (r * uint(SA) + uint(kk)) / 8u, uint(SA / 8),
                            gl_CooperativeMatrixLayoutRowMajor);
            }
            [[unroll]] for (int j = 0; j < FN; ++j) {
                uint c = (sgn * uint(FN) + uint(j)) * 16u;
                coopMatLoad(fb[j], Bs, (uint(kk) * uint(SB) + c) / 8u, uint(SB / 8),
                            gl_CooperativeMatrixLayoutRowMajor);
            }
            [[unroll]] for (int i = 0; i < FM; ++i) {
                [[unroll]] for (int j = 0; j < FN; ++j) {
                    acc[i][j] = coopMatMulAdd(fa[i], fb[j], acc[i][j]);
                }
            }
        }
        barrier();
    }

    [[unroll]] for (int i = 0; i < FM; ++i) {
        [[unroll]] for (int j = 0; j < FN; ++j) {
            uint r = row0 + (sgm * uint(FM) + uint(i)) * 16u;
            uint c = col0 + (sgn * uint(FN) + uint(j)) * 16u;
            coopMatStore(acc[i][j], C, r * pc.N + c, pc.N, gl_CooperativeMatrixLayoutRowMajor);
        }
    }
}
