#version 450
// 3x3 binomial filter (1 2 1 / 2 4 2 / 1 2 1, over 16) of a width x height f32 image held in
// a buffer, edges clamped; one invocation per output pixel, T x T workgroups.
//
// USE_LDS = 0: every invocation loads its nine taps from global memory (each pixel is loaded
//              by nine invocations; the caches catch what they can).
// USE_LDS = 1: the group first loads its T x T tile plus a one-pixel border, (T+2)^2 pixels,
//              into shared memory cooperatively, then reads the nine taps from there
//              (seeds/004, "Neighborhood processing"). The border is the overhead:
//              4T+4 extra loads on T^2, 56 % at 8x8, 27 % at 16x16, 13 % at 32x32.
//
// Invocations outside the image still load their share of the tile and reach the barrier;
// only their store is skipped (a barrier in non-uniform control flow is undefined).
// The weights are powers of two, so every product is exact, and `precise` keeps the sum in
// row-major order without contraction: both modes match the CPU reference bit for bit.
#extension GL_EXT_control_flow_attributes : require
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifndef T
#error T (the square workgroup's side) must be defined
#endif
#ifndef USE_LDS
#define USE_LDS 0
#endif

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };

layout(push_constant) uniform Push { int width; int height; } pc;

const float WEIGHT[9] = float[9](1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0);

float fetch(ivec2 p) {
    p = clamp(p, ivec2(0), ivec2(pc.width - 1, pc.height - 1));
    return src[p.y * pc.width + p.x];
}

#if USE_LDS
const int S = T + 2;
shared float tile[S * S];
#endif

void main() {
    p3_probe_record();
    ivec2 gid = ivec2(gl_GlobalInvocationID.xy);
#if USE_LDS
    ivec2 lid = ivec2(gl_LocalInvocationID.xy);
    ivec2 origin = ivec2(gl_WorkGroupID.xy) * T - 1;
    for (int i = int(gl_LocalInvocationIndex); i < S * S; i += T * T) {
        tile[i] = fetch(origin + ivec2(i % S, i / S));
    }
    barrier();
#endif
    if (gid.x >= pc.width || gid.y >= pc.height) {
        return;
    }
    precise float acc = 0.0;
    [[unroll]] for (int dy = -1; dy <= 1; ++dy) {
        [[unroll]] for (int dx = -1; dx <= 1; ++dx) {
#if USE_LDS
            float v = tile[(lid.y + 1 + dy) * S + lid.x + 1 + dx];
#else
            float v = fetch(gid + ivec2(dx, dy));
#endif
            acc += WEIGHT[(dy + 1) * 3 + dx + 1] * v;
        }
    }
    dst[gid.y * pc.width + gid.x] = acc * 0.0625;
}
