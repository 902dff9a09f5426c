#version 450
// GEMM, one output element per invocation, straight from global memory: invocation (x, y)
// computes C[y][x] from row y of A and column x of B. Neighbouring invocations along x read
// neighbouring B elements (coalesced) and the same A element (a broadcast); every reuse of an
// element by another invocation is left to the caches.
#include "p3lab.glsl"
#include "gemm.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

void main() {
    p3_probe_record();
    uint col = gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    if (row < pc.M && col < pc.N) {
        float acc = 0.0;
        for (uint k = 0; k < pc.K; ++k) {
            acc = fma(A[row * pc.K + k], B[k * pc.N + col], acc);
        }
        C[row * pc.N + col] = acc;
    }
}
