#version 450
// Coalesced vs strided reads (seeds/001, "Global Memory: Leverage Coalesced Access").
//
// n = K * T u32 values are summed in T columns of K: out[s] = sum_k src[s + k*T] (wrapping).
// Every variant computes the same T sums with the same K reads each; only which thread
// computes which column changes. Thread t computes column
//     s = (t mod (T/STRIDE)) * STRIDE + t / (T/STRIDE)
// so the lanes of a subgroup read addresses STRIDE*4 bytes apart on every step k (STRIDE = 1:
// neighbouring lanes read neighbouring words). Integer sums are exact in any order, so the
// outputs of all variants are bit-identical. Writes are 1/K of the traffic.
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifndef STRIDE
#define STRIDE 1
#endif

layout(set = 0, binding = 0, std430) readonly buffer Src { uint src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uint dst[]; };

// columns: T = n / K (a multiple of STRIDE); k: reads per thread.
layout(push_constant) uniform Push { uint columns; uint k; } pc;

void main() {
    p3_probe_record();
    uint t = gl_GlobalInvocationID.x;
    if (t >= pc.columns) {
        return;
    }
    uint per = pc.columns / STRIDE;
    uint s = (t % per) * STRIDE + t / per;
    uint sum = 0u;
    for (uint j = 0u; j < pc.k; ++j) {
        sum += src[s + j * pc.columns];
    }
    dst[s] = sum;
}
