#version 450
// reduce_sum pass 1: each workgroup sums a grid-stride share of the input into partials[group].
//
// Per iteration an invocation issues LOADS independent vec4 loads (16 bytes each, LOADS * 16
// bytes in flight per invocation before it waits), one workgroup width apart so that a
// subgroup of 32 reads contiguous 512-byte runs, and adds them into LOADS vec4 accumulators
// (independent dependency chains).
// Then: vec4 -> float, subgroupAdd, one word per subgroup in shared memory, one barrier,
// subgroupAdd in subgroup 0, one store per workgroup. No float atomics: pass 2
// (sum_final.comp) adds the partials.
//
// The elements past the last whole vec4 (n % 4 of them) are added by pass 2.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifndef LOADS
#define LOADS 4
#endif

layout(set = 0, binding = 0, std430) restrict readonly buffer Input { vec4 x4[]; };
layout(set = 0, binding = 1, std430) restrict writeonly buffer Partials { float partials[]; };

layout(push_constant) uniform Push { uint n; } pc;

// One word per subgroup; gl_WorkGroupSize.x words cover any subgroup size.
shared float m[gl_WorkGroupSize.x];

void main() {
    p3_probe_record();
    const uint THREADS = gl_WorkGroupSize.x;
    // n < 2^32 floats, so nv < 2^30 and i + stride below never wraps.
    uint nv = pc.n / 4;
    uint i = gl_WorkGroupID.x * (THREADS * LOADS) + gl_LocalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * (THREADS * LOADS);
    vec4 acc[LOADS];
    for (uint k = 0; k < LOADS; ++k) {
        acc[k] = vec4(0.0);
    }
    // Whole iterations: all LOADS loads in bounds, issued before any add.
    for (; i + (LOADS - 1) * THREADS < nv; i += stride) {
        vec4 v[LOADS];
        for (uint k = 0; k < LOADS; ++k) {
            v[k] = x4[i + k * THREADS];
        }
        for (uint k = 0; k < LOADS; ++k) {
            acc[k] += v[k];
        }
    }
    // The last, partial iteration.
    for (uint k = 0; k < LOADS; ++k) {
        if (i + k * THREADS < nv) {
            acc[k] += x4[i + k * THREADS];
        }
    }
    for (uint k = 1; k < LOADS; ++k) {
        acc[0] += acc[k];
    }
    float s = subgroupAdd((acc[0].x + acc[0].y) + (acc[0].z + acc[0].w));
    if (subgroupElect()) {
        m[gl_SubgroupID] = s;
    }
    barrier();
    if (gl_SubgroupID == 0) {
        float t = 0.0;
        // Index by rank among the active lanes: correct even if subgroup 0 is not full.
        uvec4 lanes = subgroupBallot(true);
        uint active_lanes = subgroupBallotBitCount(lanes);
        uint rank = subgroupBallotExclusiveBitCount(lanes);
        for (uint k = rank; k < gl_NumSubgroups; k += active_lanes) {
            t += m[k];
        }
        t = subgroupAdd(t);
        if (subgroupElect()) {
            partials[gl_WorkGroupID.x] = t;
        }
    }
}
