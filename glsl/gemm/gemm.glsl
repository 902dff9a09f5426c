// What every GEMM shader shares: C (M x N) = A (M x K) * B (K x N), fp32, row-major, with the
// sizes as push constants (the scenario passes M = N = K = n; the shaders do not assume it).
//
// Every shader sums each element of C in the same order, k = 0, 1, ..., K-1, one fma() per
// term, starting from 0; terms past K (padding of a partial tile) are fma(0, 0, acc) = acc. So
// the variants compute the same value, and the check's tolerance is the rounding bound of one
// length-K dot product (scenarios/gemm.toml).
layout(set = 0, binding = 0, std430) readonly buffer MatA { float A[]; };
layout(set = 0, binding = 1, std430) readonly buffer MatB { float B[]; };
layout(set = 0, binding = 2, std430) writeonly buffer MatC { float C[]; };

layout(push_constant) uniform Sizes { uint M; uint N; uint K; } pc;

// A[row][k], or 0 outside the matrix (a partial tile).
float load_a(uint row, uint k) {
    float v = 0.0;
    if (row < pc.M && k < pc.K) {
        v = A[row * pc.K + k];
    }
    return v;
}

// B[k][col], or 0 outside the matrix.
float load_b(uint k, uint col) {
    float v = 0.0;
    if (k < pc.K && col < pc.N) {
        v = B[k * pc.N + col];
    }
    return v;
}
