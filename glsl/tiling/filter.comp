#version 450
// A denoiser-like wide-kernel filter (seeds/000): every pixel reads 5 x 5 taps spread over a
// (2R+1) x (2R+1) window (offsets -R, -R/2, 0, R/2, R on each axis), with a cross-bilateral-
// like edge-stopping weight: a tap counts, with a spatial weight of 1, 1/2 or 1/4 by ring,
// only when its luminance (r+g+b) is within EDGE of the centre's. The footprints of
// neighbouring workgroups overlap widely, which is what thread-group tiling exploits.
//
// Output: rgb = sum(w * tap.rgb), a = sum(w). The normalisation rgb / a is left to the
// consumer on purpose: with power-of-two weights, exact f16 -> f32 inputs, a fixed summation
// order and no FMA contraction (`precise`), every value is exactly reproducible, so all
// variants must agree bit for bit, and with the CPU reference `tiling_filter` too. A division
// (approximate on NVIDIA) would spoil the latter.
//
// ORDER picks the workgroup launch-order remap (glsl/tiling/remap.glsl):
//   0 row-major (baseline), 1 tiles along X, 2 tiles along Y (TILE_N groups), 3 Morton.
#include "p3lab.glsl"
#include "remap.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;

layout(push_constant) uniform Push {
    uint width;
    uint height;
    uint radius;   // R: half-width of the window in pixels
} pc;

#ifndef ORDER
#define ORDER 0
#endif
#ifndef TILE_N
#define TILE_N 16
#endif

// Luminance difference up to which a tap counts (luminance = r + g + b, in [0, 3)).
const float EDGE = 1.0;

uvec2 launch_group();
void filter_pixel(uvec2 group);

void main() {
    p3_probe_record();
    uvec2 group = launch_group();
    // Per-workgroup start/end times with --probe (nothing otherwise), filed under the group
    // this workgroup works on, so the launch-order picture shows the remap.
    p3_group_begin_at(uvec3(group, 0));
    filter_pixel(group);
    p3_group_end();
}

uvec2 launch_group() {
    uint idx = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uvec2 grid = gl_NumWorkGroups.xy;
#if ORDER == 0
    uvec2 group = remap_rowmajor(idx, grid);
#elif ORDER == 1
    uvec2 group = remap_tile_x(idx, grid, TILE_N);
#elif ORDER == 2
    uvec2 group = remap_tile_y(idx, grid, TILE_N);
#elif ORDER == 3
    uvec2 group = remap_morton(idx, grid);
#else
#error "ORDER must be 0, 1, 2 or 3"
#endif
    return group;
}

void filter_pixel(uvec2 group) {
    ivec2 p = ivec2(group * gl_WorkGroupSize.xy + gl_LocalInvocationID.xy);
    ivec2 size = ivec2(pc.width, pc.height);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }

    int r = int(pc.radius);
    int offs[5] = int[5](-r, -(r / 2), 0, r / 2, r);
    vec3 c0 = texelFetch(src, p, 0).rgb;
    precise float l0 = (c0.r + c0.g) + c0.b;
    precise vec4 acc = vec4(0.0);
    for (int j = 0; j < 5; ++j) {
        for (int i = 0; i < 5; ++i) {
            ivec2 q = clamp(p + ivec2(offs[i], offs[j]), ivec2(0), size - 1);
            vec3 c = texelFetch(src, q, 0).rgb;
            precise float l = (c.r + c.g) + c.b;
            int ring = max(abs(i - 2), abs(j - 2));
            float ws = ring == 0 ? 1.0 : (ring == 1 ? 0.5 : 0.25);
            float w = abs(l - l0) <= EDGE ? ws : 0.0;
            acc += vec4(w * c, w);
        }
    }
    imageStore(dst, p, acc);
}
