#version 450
// GEMM, register-blocked: a WG x WG workgroup computes a BM x BN = (WG*TM) x (WG*TM) block of
// C, each invocation a TM x TM micro-tile of it held in registers. For each step of BK along
// k, the group copies A's BM x BK block and B's BK x BN block to shared memory (each
// invocation BM*BK / WG^2 elements of each); then, per k, each invocation reads TM values of A
// and TM of B from shared memory into registers and does TM*TM fma: TM/2 fma per shared
// load, against 1/2 in tiled.comp. A global element is read once per workgroup that needs it:
// A N/BN times in all, B M/BM times.
//
// An invocation's rows are ty, ty + WG, ..., and its columns tx, tx + WG, ... (strided, not
// contiguous): reads of Bs across tx are consecutive (no bank conflict) and so are the stores
// to C (coalesced). The variant must declare workgroup = [WG, WG] (scenarios/gemm.toml does).
#extension GL_EXT_control_flow_attributes : require
#include "p3lab.glsl"
#include "gemm.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifndef WG
#define WG 16
#endif
#ifndef TM
#define TM 4
#endif
#ifndef BK
#define BK 8
#endif
#define BM (WG * TM)
#define BN (WG * TM)
#define THREADS (WG * WG)

shared float As[BM][BK];
shared float Bs[BK][BN];

void main() {
    p3_probe_record();
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint tid = ty * WG + tx;
    uint m0 = gl_WorkGroupID.y * BM;
    uint n0 = gl_WorkGroupID.x * BN;
    float acc[TM][TM];
    [[unroll]] for (uint i = 0; i < TM; ++i) {
        [[unroll]] for (uint j = 0; j < TM; ++j) {
            acc[i][j] = 0.0;
        }
    }
    for (uint k0 = 0; k0 < pc.K; k0 += BK) {
        // Consecutive invocations copy consecutive elements: along k for A (BK at a time),
        // along n for B.
        [[unroll]] for (uint s = 0; s < (BM * BK + THREADS - 1) / THREADS; ++s) {
            uint e = s * THREADS + tid;
            if (e < BM * BK) {
                As[e / BK][e % BK] = load_a(m0 + e / BK, k0 + e % BK);
            }
        }
        [[unroll]] for (uint s = 0; s < (BK * BN + THREADS - 1) / THREADS; ++s) {
            uint e = s * THREADS + tid;
            if (e < BK * BN) {
                Bs[e / BN][e % BN] = load_b(k0 + e / BN, n0 + e % BN);
            }
        }
        barrier();
        // The i, j loops are unrolled so that acc, a and b stay in registers; this one is left
        // to the driver (unrolled in SPIR-V too, an 8x8, BK = 16 variant took shaderc ~1 s).
        for (uint k = 0; k < BK; ++k) {
            float a[TM];
            float b[TM];
            [[unroll]] for (uint i = 0; i < TM; ++i) {
                a[i] = As[ty + i * WG][k];
            }
            [[unroll]] for (uint j = 0; j < TM; ++j) {
                b[j] = Bs[k][tx + j * WG];
            }
            [[unroll]] for (uint i = 0; i < TM; ++i) {
                [[unroll]] for (uint j = 0; j < TM; ++j) {
                    acc[i][j] = fma(a[i], b[j], acc[i][j]);
                }
            }
        }
        barrier();
    }
    [[unroll]] for (uint i = 0; i < TM; ++i) {
        uint row = m0 + ty + i * WG;
        [[unroll]] for (uint j = 0; j < TM; ++j) {
            uint col = n0 + tx + j * WG;
            if (row < pc.M && col < pc.N) {
                C[row * pc.N + col] = acc[i][j];
            }
        }
    }
}
