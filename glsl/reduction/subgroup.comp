#version 450
// Beyond the article: the same per-tile reduction with subgroupAdd. Each subgroup reduces its
// values in registers (no shared memory, no barrier); one word per subgroup goes to shared
// memory; one barrier; subgroup 0 adds those words with a second subgroupAdd. Run at each
// required subgroup size the device allows (wave32/wave64 on AMD RDNA; 32 on NVIDIA; 8 on
// lavapipe).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "p3lab.glsl"
#include "tile.glsl"

// One word per subgroup; N words cover any subgroup size.
shared float m[N];

void main() {
    p3_probe_record();
    float s = subgroupAdd(prefetch_luminance());
    // gl_NumSubgroups is uniform in the workgroup, so this early return is uniform too.
    if (gl_NumSubgroups == 1) {
        if (subgroupElect()) {
            write_group_result(s);
        }
        return;
    }
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
            write_group_result(t);
        }
    }
}
