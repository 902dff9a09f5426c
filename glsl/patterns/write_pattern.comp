#version 450
// Write patterns (seeds/002, "Texture access - reading & writing"): whole 16-byte texels vs
// three channels of a four-channel output, and how threads map to pixels.
//
// Every variant reads the W x H rgba32f image `src` and writes, for every pixel,
//     dst[y * W + x] = vec4(src.zyx + src.www, 1.0)
// into a row-major buffer of vec4 whose w channel starts at 1.0 (init constant 1.0).
//   WRITE 0: store x, y and z only (12 of every 16 bytes; the article's `output.xyz = color`).
//            glslang emits three 4-byte stores for it (no read of w); the driver may merge them.
//   WRITE 1: store the whole texel with a dummy w (`float4(color.xyz, 1.0f)`).
//   WRITE 2: load w first, then store the whole texel (`color.w = output[id].w`).
//   MAP 0: one pixel per thread at gl_GlobalInvocationID.xy (the workgroup shape decides
//          whether a group covers 8 x 8 or 64 x 1 pixels);
//   MAP 1: four pixels per thread, a 2 x 2 quad at 2 * id (the article's first attempt:
//          neighbouring lanes write 32 bytes apart);
//   MAP 2: four pixels per thread at id + (0,0), (8,0), (0,8), (8,8) of the group's 16 x 16
//          block (the article's fix: each store instruction covers a contiguous 8 x 8 block).
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifndef WRITE
#define WRITE 1
#endif
#ifndef MAP
#define MAP 0
#endif

layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, std430) buffer Dst { vec4 dst[]; };

layout(push_constant) uniform Push { uint width; uint height; } pc;

void shade(uvec2 p) {
    vec4 s = texelFetch(src, ivec2(p), 0);
    vec3 c = s.zyx + s.www;
    uint i = p.y * pc.width + p.x;
#if WRITE == 0
    dst[i].xyz = c;
#elif WRITE == 1
    dst[i] = vec4(c, 1.0);
#else
    float w = dst[i].w;
    dst[i] = vec4(c, w);
#endif
}

void main() {
    p3_probe_record();
#if MAP == 0
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x < pc.width && p.y < pc.height) {
        shade(p);
    }
#else
#if MAP == 1
    uvec2 base = gl_GlobalInvocationID.xy * 2u;
    const uint step = 1u;
#else
    uvec2 base = gl_WorkGroupID.xy * gl_WorkGroupSize.xy * 2u + gl_LocalInvocationID.xy;
    uint step = gl_WorkGroupSize.x;  // 8 for an 8 x 8 group
#endif
    for (uint dy = 0u; dy < 2u; ++dy) {
        for (uint dx = 0u; dx < 2u; ++dx) {
            uvec2 p = base + uvec2(dx, dy) * step;
            if (p.x < pc.width && p.y < pc.height) {
                shade(p);
            }
        }
    }
#endif
}
