#version 450
// reduce_sum pass 2: one workgroup adds the `groups` partial sums of pass 1 and the n % 4
// input elements that pass 1's vec4 loads left out, and writes result[0].
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) restrict readonly buffer Input { float x[]; };
layout(set = 0, binding = 1, std430) restrict readonly buffer Partials { float partials[]; };
layout(set = 0, binding = 2, std430) restrict writeonly buffer Result { float result[]; };

layout(push_constant) uniform Push {
    uint n;
    uint groups;
} pc;

shared float m[gl_WorkGroupSize.x];

void main() {
    p3_probe_record();
    uint lid = gl_LocalInvocationID.x;
    float t = 0.0;
    for (uint k = lid; k < pc.groups; k += gl_WorkGroupSize.x) {
        t += partials[k];
    }
    if (lid == 0) {
        for (uint k = pc.n & ~3u; k < pc.n; ++k) {
            t += x[k];
        }
    }
    t = subgroupAdd(t);
    if (subgroupElect()) {
        m[gl_SubgroupID] = t;
    }
    barrier();
    if (gl_SubgroupID == 0) {
        float u = 0.0;
        // Index by rank among the active lanes: correct even if subgroup 0 is not full.
        uvec4 lanes = subgroupBallot(true);
        uint active_lanes = subgroupBallotBitCount(lanes);
        uint rank = subgroupBallotExclusiveBitCount(lanes);
        for (uint k = rank; k < gl_NumSubgroups; k += active_lanes) {
            u += m[k];
        }
        u = subgroupAdd(u);
        if (subgroupElect()) {
            result[0] = u;
        }
    }
}
