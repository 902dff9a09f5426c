// p3lab's in-shader probe. Include it and call p3_probe_record() once at the top of main():
// every subgroup of every workgroup records the subgroup size that actually ran and how many
// of its lanes are active, so p3lab can write them beside the requested size instead of
// assuming it.
//
// p3lab binds the probe buffer at set P3_PROBE_SET (3), binding 0, and defines P3_PROBE_SET
// for every shader it compiles; it sets the minimum words to 0xffffffff and the maximum to 0
// before the check run. The cost per subgroup is a ballot, three loads by one lane, and an
// atomic only when this subgroup's value lowers a minimum or raises the maximum: in a
// steady run, none.
#ifndef P3LAB_GLSL
#define P3LAB_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require

#ifndef P3_PROBE_SET
#define P3_PROBE_SET 3
#endif

layout(set = P3_PROBE_SET, binding = 0, std430) buffer P3Probe {
    uint subgroup_size_min;
    uint subgroup_size_max;
    uint active_lanes_min;
    uint reserved1;
} p3_probe;

void p3_probe_record() {
    uint lanes = subgroupBallotBitCount(subgroupBallot(true));
    if (subgroupElect()) {
        uint size = gl_SubgroupSize;
        // Read first: the atomics (one global memory round trip each, on one word every
        // subgroup of the dispatch hits) run only when this subgroup changes the value.
        if (size < p3_probe.subgroup_size_min) {
            atomicMin(p3_probe.subgroup_size_min, size);
        }
        if (size > p3_probe.subgroup_size_max) {
            atomicMax(p3_probe.subgroup_size_max, size);
        }
        if (lanes < p3_probe.active_lanes_min) {
            atomicMin(p3_probe.active_lanes_min, lanes);
        }
    }
}


// Per-subgroup probes (opt-in: `[measure] probe = true` or `p3lab run --probe`). p3lab then
// defines P3_PROBE_GROUPS (1: the device-scope clock of VK_KHR_shader_clock, comparable across
// the whole device; 2: the subgroup-scope clock, comparable only within one subgroup) and, on a
// device with VK_NV_shader_sm_builtins, P3_HAVE_SM_BUILTINS, and binds P3Groups at set 3,
// binding 1, with p3_group_slots uvec4 records per workgroup of every pass (spec constant
// 2041: ceil(invocations / minSubgroupSize), so every subgroup has one whatever size runs),
// after the records of earlier passes (spec constant 2040, p3_group_base). The record of
// subgroup s of group g is p3_group_base + g * p3_group_slots + s; one elected lane writes:
//   x, y  start time (low, high 32 bits), when the subgroup enters (p3_group_begin*())
//   z     end time, low 32 bits (the high bits follow from the start), when it leaves
//         (p3_group_end*())
//   w     bits 0-7 gl_SubgroupSize, 8-15 gl_WarpIDNV, 16-29 gl_SMIDNV (0 without the NV
//         builtins), bit 30 ended, bit 31 begun
// A group's record is its subgroups' together (first start, last end).
// p3lab wraps every shader's main() in p3_wrap_begin() / p3_wrap_end() by itself. A shader
// that remaps its groups calls p3_group_begin_at(g) with the remapped group (see below) at the
// top of main() and p3_group_end() where it ends; every subgroup that should be counted must
// reach it (a subgroup whose invocations all return earlier leaves an unfinished record).
// p3_group_end_here() is the same (it once meant "after your own barrier()"). Without
// P3_PROBE_GROUPS all of them compile to nothing, so the shader is unchanged.
#ifdef P3_PROBE_GROUPS
#if P3_PROBE_GROUPS == 1
#extension GL_EXT_shader_realtime_clock : require
#define P3_CLOCK() clockRealtime2x32EXT()
#else
#extension GL_ARB_shader_clock : require
#define P3_CLOCK() clock2x32ARB()
#endif
#ifdef P3_HAVE_SM_BUILTINS
#extension GL_NV_shader_sm_builtins : require
#endif

layout(set = P3_PROBE_SET, binding = 1, std430) buffer P3Groups {
    uvec4 rec[];
} p3_groups;

// The first record of this pass: p3lab sets it per pass (the records of the passes before),
// so each pass of a multi-pass variant keeps its own.
layout(constant_id = 2040) const uint p3_group_base = 0u;
// Record slots per workgroup.
layout(constant_id = 2041) const uint p3_group_slots = 1u;

const uint P3_NO_SLOT = 0xffffffffu;

// This subgroup's record slot, set by p3_group_begin*().
uint p3_group_slot = P3_NO_SLOT;

uint p3_group_index(uvec3 g) {
    return g.x + gl_NumWorkGroups.x * (g.y + gl_NumWorkGroups.y * g.z);
}

// The slot of this subgroup in group `g`'s records (none past the slots p3lab sized).
uint p3_subgroup_slot(uvec3 g) {
    return gl_SubgroupID < p3_group_slots
        ? p3_group_base + p3_group_index(g) * p3_group_slots + gl_SubgroupID
        : P3_NO_SLOT;
}

uint p3_group_info() {
    uint info = min(gl_SubgroupSize, 255u);
#ifdef P3_HAVE_SM_BUILTINS
    info |= (min(gl_WarpIDNV, 255u) << 8) | (min(gl_SMIDNV, 0x3fffu) << 16);
#endif
    return info;
}

void p3_subgroup_begin(uint slot) {
    if (slot != P3_NO_SLOT && subgroupElect()) {
        uvec2 t = P3_CLOCK();
        p3_groups.rec[slot] = uvec4(t.x, t.y, 0u, p3_group_info() | 0x80000000u);
    }
}

void p3_subgroup_end(uint slot) {
    if (slot != P3_NO_SLOT && subgroupElect()) {
        uvec2 t = P3_CLOCK();
        p3_groups.rec[slot].z = t.x;
        p3_groups.rec[slot].w = p3_group_info() | 0xc0000000u;
    }
}

// Record this subgroup's start in the records of `g`, the group coordinates the shader
// actually works on (after a launch-order remap); the map from gl_WorkGroupID to `g` must be a
// bijection over the grid. The launch-order picture then shows where each group worked, in
// start order.
void p3_group_begin_at(uvec3 g) {
    p3_group_slot = p3_subgroup_slot(g);
    p3_subgroup_begin(p3_group_slot);
}

void p3_group_begin() {
    p3_group_begin_at(gl_WorkGroupID);
}

// Record this subgroup's end (no barrier: each subgroup when it gets here).
void p3_group_end_here() {
    p3_subgroup_end(p3_group_slot);
}

void p3_group_end() {
    p3_group_end_here();
}

// What p3lab's wrapper around main() calls: nothing is kept across the shader (the slot is
// worked out again at the end), so the probe holds no register while the shader runs.
void p3_wrap_begin() {
    p3_subgroup_begin(p3_subgroup_slot(gl_WorkGroupID));
}

void p3_wrap_end() {
    p3_subgroup_end(p3_subgroup_slot(gl_WorkGroupID));
}
#else
void p3_group_begin_at(uvec3 g) {}
void p3_group_begin() {}
void p3_group_end_here() {}
void p3_group_end() {}
#endif

#endif
