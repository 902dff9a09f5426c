#version 450
// Ladder steps 3-7: sequential addressing with the last steps inside one subgroup, and (when
// TILE*TILE > N) several pixels summed per invocation before shared memory ("pre-fetching").
//
// The article drops the barriers once fewer than 64 (AMD) or 32 (NVIDIA) invocations are
// active and relies on "warp-synchronous" execution. That is undefined behaviour under the
// Vulkan memory model: without a barrier, nothing orders one invocation's shared-memory write
// before another's read, even within a subgroup (and independent thread scheduling on NVIDIA
// Volta and later really does break it). This shader keeps the article's structure but uses
// the cheapest correct synchronisation:
//   - steps whose operands come from several subgroups: barrier() (workgroup scope);
//   - the last log2(min(N, subgroup size)) steps run in one subgroup (the one holding
//     invocation 0), with subgroupMemoryBarrierShared() + subgroupBarrier() between steps
//     (subgroup scope: what the article's missing barriers would have to be).
// Vulkan does not say which invocations form a subgroup, nor that a subgroup is full (lavapipe
// runs a 4x4 workgroup as subgroups of 4 active lanes out of 8). So the tail indexes shared
// memory by the lane's rank among the active lanes, and each lane takes every A-th slot
// (A = active lanes): one iteration when the subgroup is full, still correct when it is not.
// Likewise "the whole workgroup is one subgroup" is tested with a ballot, not assumed from N.
//
// N and the subgroup size are constants once the pipeline is made, so the driver unrolls
// the workgroup-barrier loop: this is the article's hand-unrolled `if (groupthreads >= ...)`.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#include "p3lab.glsl"
#include "tile.glsl"

shared float m[N];

void main() {
    p3_probe_record();
    uint gi = gl_LocalInvocationIndex;
    m[gi] = prefetch_luminance();
    uvec4 lanes = subgroupBallot(true);
    uint active_lanes = subgroupBallotBitCount(lanes);
    // Values left when the subgroup tail takes over (a power of two).
    uint tail = min(N, gl_SubgroupSize);
    // True in every invocation or in none (if one subgroup holds all N, there is no other):
    // uniform control flow for barrier().
    if (active_lanes != N) {
        barrier();
        for (uint s = N / 2; s >= tail; s >>= 1) {
            if (gi < s) {
                m[gi] += m[gi + s];
            }
            barrier();
        }
    } else {
        // One subgroup holds the whole workgroup: a subgroup barrier orders the stores.
        subgroupMemoryBarrierShared();
        subgroupBarrier();
    }
    if (subgroupAny(gi == 0)) {
        uint rank = subgroupBallotExclusiveBitCount(lanes);
        for (uint s = tail / 2; s > 0; s >>= 1) {
            for (uint i = rank; i < s; i += active_lanes) {
                m[i] += m[i + s];
            }
            subgroupMemoryBarrierShared();
            subgroupBarrier();
        }
        if (gi == 0) {
            write_group_result(m[0]);
        }
    }
}
