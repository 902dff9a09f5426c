// p3lab's in-shader probe. Include it and call p3_probe_record() once at the top of main():
// the first workgroup's subgroups record the subgroup size that actually ran, so p3lab can
// write it beside the requested one instead of assuming it.
//
// p3lab binds the probe buffer at set P3_PROBE_SET (3), binding 0, and defines P3_PROBE_SET
// for every shader it compiles. The cost is one comparison per invocation and a few atomics in
// workgroup 0.
#ifndef P3LAB_GLSL
#define P3LAB_GLSL

#extension GL_KHR_shader_subgroup_basic : require

#ifndef P3_PROBE_SET
#define P3_PROBE_SET 3
#endif

layout(set = P3_PROBE_SET, binding = 0, std430) buffer P3Probe {
    uint subgroup_size_min;
    uint subgroup_size_max;
    uint reserved0;
    uint reserved1;
} p3_probe;

void p3_probe_record() {
    if (gl_WorkGroupID == uvec3(0) && subgroupElect()) {
        atomicMin(p3_probe.subgroup_size_min, gl_SubgroupSize);
        atomicMax(p3_probe.subgroup_size_max, gl_SubgroupSize);
    }
}


// Per-workgroup probes (opt-in: `[measure] probe = true` or `p3lab run --probe`). p3lab then
// defines P3_PROBE_GROUPS (1: the device-scope clock of VK_KHR_shader_clock, comparable across
// the whole device; 2: the subgroup-scope clock, comparable only within one subgroup) and, on a
// device with VK_NV_shader_sm_builtins, P3_HAVE_SM_BUILTINS, and binds P3Groups at set 3,
// binding 1, with one uvec4 per workgroup of every pass,
// after the records of earlier passes (spec constant 2040, p3_group_base):
//   x, y  start time (low, high 32 bits), taken by invocation 0 at p3_group_begin()
//   z     end time, low 32 bits (the high bits follow from the start), at p3_group_end()
//   w     bits 0-7 gl_SubgroupSize, 8-15 gl_WarpIDNV, 16-29 gl_SMIDNV (0 without the NV
//         builtins), bit 30 ended, bit 31 begun
// p3lab wraps every shader's main() in p3_group_begin() / p3_group_end() by itself. A shader
// that remaps its groups calls them instead: p3_group_begin_at(g) with the remapped group (see
// below) at the top of main() and p3_group_end() at its end from uniform control
// flow (every invocation of the group must reach it: it is a barrier()); a shader that already
// ends with a barrier() can call p3_group_end_here() after it instead. Without
// P3_PROBE_GROUPS all three compile to nothing, so the shader is unchanged.
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

// The first record of this pass: p3lab sets it per pass (the groups of the passes before), so
// each pass of a multi-pass variant keeps its own records.
layout(constant_id = 2040) const uint p3_group_base = 0u;

// The record slot of this group, set by p3_group_begin*().
uint p3_group_slot;

uint p3_group_index(uvec3 g) {
    return p3_group_base + g.x + gl_NumWorkGroups.x * (g.y + gl_NumWorkGroups.y * g.z);
}

uint p3_group_info() {
    uint info = min(gl_SubgroupSize, 255u);
#ifdef P3_HAVE_SM_BUILTINS
    info |= (min(gl_WarpIDNV, 255u) << 8) | (min(gl_SMIDNV, 0x3fffu) << 16);
#endif
    return info;
}

// Record this group's start in the slot of `g`, the group coordinates the shader actually
// works on (after a launch-order remap); the map from gl_WorkGroupID to `g` must be a bijection
// over the grid. The launch-order picture then shows where each group worked, in start order.
void p3_group_begin_at(uvec3 g) {
    p3_group_slot = p3_group_index(g);
    if (gl_LocalInvocationIndex == 0u) {
        uvec2 t = P3_CLOCK();
        p3_groups.rec[p3_group_slot] = uvec4(t.x, t.y, 0u, p3_group_info() | 0x80000000u);
    }
}

void p3_group_begin() {
    p3_group_begin_at(gl_WorkGroupID);
}

void p3_group_end_here() {
    if (gl_LocalInvocationIndex == 0u) {
        uvec2 t = P3_CLOCK();
        p3_groups.rec[p3_group_slot].z = t.x;
        p3_groups.rec[p3_group_slot].w = p3_group_info() | 0xc0000000u;
    }
}

void p3_group_end() {
    barrier();
    p3_group_end_here();
}

// What p3lab's wrapper around main() calls: nothing is kept across the shader (the slot is
// worked out again at the end), so the probe holds no register while the shader runs.
void p3_wrap_begin() {
    if (gl_LocalInvocationIndex == 0u) {
        uvec2 t = P3_CLOCK();
        p3_groups.rec[p3_group_index(gl_WorkGroupID)] =
            uvec4(t.x, t.y, 0u, p3_group_info() | 0x80000000u);
    }
}

void p3_wrap_end() {
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uint slot = p3_group_index(gl_WorkGroupID);
        uvec2 t = P3_CLOCK();
        p3_groups.rec[slot].z = t.x;
        p3_groups.rec[slot].w = p3_group_info() | 0xc0000000u;
    }
}
#else
void p3_group_begin_at(uvec3 g) {}
void p3_group_begin() {}
void p3_group_end_here() {}
void p3_group_end() {}
#endif

#endif
