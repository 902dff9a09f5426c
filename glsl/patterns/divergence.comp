#version 450
// Divergent vs uniform branches (seeds/001, "Avoid Divergent Branching").
//
// out[i] = path_a(src[i]) for even i, path_b(src[i]) for odd i, in every variant. The two
// paths are loops of ITERS multiply-add steps with different instruction sequences, so the
// compiler cannot merge them into one. What changes is which thread computes which element,
// and so what the branch condition depends on:
//   MAP 0 (lane parity): thread i computes element i; the branch is on the lane index, so every
//     subgroup runs both paths with half its lanes idle (the article's BAD example);
//   MAP 1 (half group): the first half of a workgroup computes the even elements of its block,
//     the second half the odd ones; uniform per subgroup while the subgroup size is at most
//     half the workgroup (not for wave64 with a 64-wide group);
//   MAP 2 (group parity): even workgroups compute the even elements of a block of 2 * WG,
//     odd workgroups the odd ones; the branch is on the workgroup index.
// MAP 1 and 2 read and write with a stride of 2 elements; the work is ALU-bound, so the
// memory pattern is a minor cost (compare bytes with the time).
// `precise` forbids fusing the multiply and add into an FMA, so the CPU reference is exact.
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifndef MAP
#define MAP 0
#endif

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };

layout(push_constant) uniform Push { uint n; uint iters; } pc;

float path_a(float v) {
    precise float x = v;
    for (uint i = 0u; i < pc.iters; ++i) {
        x = x * 0.999 + 0.25;
    }
    return x;
}

float path_b(float v) {
    precise float x = v;
    for (uint i = 0u; i < pc.iters; ++i) {
        x = (x - 0.125) * 1.0005;
    }
    return x;
}

void main() {
    p3_probe_record();
    uint wg = gl_WorkGroupSize.x;
    uint g = gl_WorkGroupID.x;
    uint lid = gl_LocalInvocationID.x;
#if MAP == 0
    uint i = g * wg + lid;
    bool odd = (lid & 1u) != 0u;                 // varies lane to lane
#elif MAP == 1
    uint half_wg = wg / 2u;
    bool odd = lid >= half_wg;                   // uniform per subgroup of <= wg/2 lanes
    uint i = g * wg + 2u * (odd ? lid - half_wg : lid) + (odd ? 1u : 0u);
#else
    bool odd = (g & 1u) != 0u;                   // uniform per workgroup
    uint i = (g >> 1u) * 2u * wg + 2u * lid + (g & 1u);
#endif
    if (i >= pc.n) {
        return;
    }
    float v = src[i];
    float r;
    if (odd) {
        r = path_b(v);
    } else {
        r = path_a(v);
    }
    dst[i] = r;
}
