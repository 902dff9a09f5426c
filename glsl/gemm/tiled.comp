#version 450
// GEMM with shared-memory tiles: a TILE x TILE workgroup computes a TILE x TILE block of C,
// one element per invocation. For each step of TILE along k, every invocation loads one
// element of A's block and one of B's into shared memory, and after a barrier each
// invocation reads TILE of each from there. A global element is read once per workgroup that
// needs it: A N/TILE times in all, B M/TILE times (naive.comp leaves that to the caches).
//
// The variant must declare workgroup = [TILE, TILE] (scenarios/gemm.toml does).
#include "p3lab.glsl"
#include "gemm.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifndef TILE
#define TILE 16
#endif

shared float As[TILE][TILE];
shared float Bs[TILE][TILE];

void main() {
    p3_probe_record();
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint col = gl_WorkGroupID.x * TILE + tx;
    uint row = gl_WorkGroupID.y * TILE + ty;
    float acc = 0.0;
    for (uint k0 = 0; k0 < pc.K; k0 += TILE) {
        // Consecutive tx read consecutive addresses of both matrices (coalesced).
        As[ty][tx] = load_a(row, k0 + tx);
        Bs[ty][tx] = load_b(k0 + ty, col);
        barrier();
        for (uint k = 0; k < TILE; ++k) {
            // As[ty][k] is one address per row of the group (a broadcast); Bs[k][tx] is
            // consecutive across tx (no bank conflict).
            acc = fma(As[ty][k], Bs[k][tx], acc);
        }
        barrier();
    }
    if (row < pc.M && col < pc.N) {
        C[row * pc.N + col] = acc;
    }
}
