#version 450
// Uniform vs non-uniform descriptor indexing, and the waterfall loop (seeds/002,
// "Scalarization", "Waterfall").
//
// NSEL of the NBUF bound sources (storage buffers at binding 0, or sampled images at binding 1,
// with the same contents) are copied into dst: dst[k * W*H + p] = source_k[p], for
// k < NSEL and every pixel p. All variants compute the same output; they differ in how threads
// are assigned to (k, p) and in how the descriptor index is written:
//   FORM 0 (uniform): workgroup g copies source k = g mod NSEL, pixels (g / NSEL) * WG + lane:
//          the index is uniform per workgroup and needs no qualifier;
//   FORM 1 (non-uniform): thread t copies k = t mod NSEL, p = t / NSEL: neighbouring lanes use
//          different descriptors; the index is marked nonuniformEXT (the GLSL spelling of HLSL's
//          NonUniformResourceIndex). Without it the behaviour is undefined (the article: the
//          compiler then assumes the index is uniform and uses one descriptor for the wave);
//   FORM 2 (waterfall): the same assignment, with the loop the article shows the compiler
//          emitting, written by hand: take the first active lane's index, let the lanes with
//          that index load, repeat for the rest.
//          Note: subgroupBroadcastFirst makes the index uniform per subgroup, but Vulkan asks
//          for a dynamically uniform index across the whole workgroup (the invocation group)
//          unless it is decorated NonUniform; with a 64-wide group and 32-wide subgroups it is
//          not. So the hand-written loop still marks the index nonuniformEXT; compilers that
//          see the broadcast can still use one descriptor per subgroup.
// Both mappings read and write whole 16-byte texels; FORM 1/2 split each subgroup's accesses
// over NSEL sources, which is inherent to non-uniform access.
#extension GL_EXT_nonuniform_qualifier : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifndef NBUF
#define NBUF 8
#endif
#ifndef KIND
#define KIND 0  // 0: storage buffers, 1: sampled images
#endif
#ifndef FORM
#define FORM 0
#endif

layout(set = 0, binding = 0, std430) readonly buffer Src { vec4 v[]; } bufs[NBUF];
layout(set = 0, binding = 1) uniform sampler2D imgs[NBUF];
layout(set = 0, binding = 2, std430) writeonly buffer Dst { vec4 dst[]; };

layout(push_constant) uniform Push { uint width; uint height; uint nsel; } pc;

#if KIND == 0
#define LOAD_UNIFORM(k, p) bufs[k].v[p]
#define LOAD_NONUNIFORM(k, p) bufs[nonuniformEXT(k)].v[p]
#else
#define LOAD_UNIFORM(k, p) texelFetch(imgs[k], ivec2((p) % pc.width, (p) / pc.width), 0)
#define LOAD_NONUNIFORM(k, p) \
    texelFetch(imgs[nonuniformEXT(k)], ivec2((p) % pc.width, (p) / pc.width), 0)
#endif

void main() {
    p3_probe_record();
    uint pixels = pc.width * pc.height;
#if FORM == 0
    uint g = gl_WorkGroupID.x;
    uint k = g % pc.nsel;
    uint p = (g / pc.nsel) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
#else
    uint t = gl_GlobalInvocationID.x;
    uint k = t % pc.nsel;
    uint p = t / pc.nsel;
#endif
    if (p >= pixels) {
        return;
    }
    vec4 value;
#if FORM == 0
    value = LOAD_UNIFORM(k, p);
#elif FORM == 1
    value = LOAD_NONUNIFORM(k, p);
#else
    for (;;) {
        uint first = subgroupBroadcastFirst(k);
        if (k == first) {
            value = LOAD_NONUNIFORM(first, p);
            break;
        }
    }
#endif
    dst[k * pixels + p] = value;
}
