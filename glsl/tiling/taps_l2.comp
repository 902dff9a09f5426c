#version 450
// A DRAM-bound pass with a long vertical reuse distance, for thread-group tiling (seeds/000).
// Every pixel reads 5 taps of an 8-byte pixel (vec2 of f32) from a row-major STORAGE buffer,
// at -R, -R/2, 0, R/2 and R rows in its own column (clamped to the image), and writes one
// 8-byte pixel. Few operations per byte: the pass is memory bound whichever level serves it.
//
// Why the launch order matters here: a source row is read five times, by pixels R/2 rows
// apart. Between two reads of one row, a row-major launch advances R/2 rows and its five taps
// sweep the rows y - 2R .. y + R/2 through the L2: about 2.5R rows x width x 8 bytes (the
// reuse distance). Once that is larger than the L2, every tap comes from DRAM: 40 bytes read
// per pixel instead of 8. Tiles of N groups along X (remap_tile_x) cut the rows to
// N x workgroup width pixels, so the same sweep takes 2.5R x N x wg_x x 8 bytes and stays in
// the L2. The filter in filter.comp (25 texture fetches per pixel) is limited by the texture
// units instead, which is why it shows no effect on an H200 (reports/nvidia-h200/README.md).
//
// Output: out = 0.25 t(-R) + 0.5 t(-R/2) + t(0) + 0.5 t(R/2) + 0.25 t(R), summed in that
// order. Multiplying by a power of two is exact, so FMA contraction changes nothing, and with
// the order fixed (`precise`) every variant agrees bit for bit, with the CPU reference
// `tiling_taps_l2` (src/refs/tiling.rs) too.
//
// ORDER picks the workgroup launch-order remap (glsl/tiling/remap.glsl):
//   0 row-major (baseline), 1 tiles along X, 2 tiles along Y (TILE_N groups), 3 Morton.
#include "p3lab.glsl"
#include "remap.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { vec2 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { vec2 dst[]; };

layout(push_constant) uniform Push {
    uint width;
    uint height;
    uint radius;   // R: the outer taps are R rows above and below
} pc;

#ifndef ORDER
#define ORDER 0
#endif
#ifndef TILE_N
#define TILE_N 16
#endif

uvec2 launch_group() {
    uint idx = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uvec2 grid = gl_NumWorkGroups.xy;
#if ORDER == 0
    return remap_rowmajor(idx, grid);
#elif ORDER == 1
    return remap_tile_x(idx, grid, TILE_N);
#elif ORDER == 2
    return remap_tile_y(idx, grid, TILE_N);
#elif ORDER == 3
    return remap_morton(idx, grid);
#else
#error "ORDER must be 0, 1, 2 or 3"
#endif
}

vec2 tap(uint x, int y) {
    uint row = uint(clamp(y, 0, int(pc.height) - 1));
    return src[row * pc.width + x];
}

void main() {
    p3_probe_record();
    uvec2 group = launch_group();
    // Per-workgroup start/end times with --probe, filed under the group worked on.
    p3_group_begin_at(uvec3(group, 0));
    uvec2 p = group * gl_WorkGroupSize.xy + gl_LocalInvocationID.xy;
    if (p.x < pc.width && p.y < pc.height) {
        int y = int(p.y);
        int r = int(pc.radius);
        int h = r / 2;
        precise vec2 acc = tap(p.x, y - r) * 0.25;
        acc = acc + tap(p.x, y - h) * 0.5;
        acc = acc + tap(p.x, y);
        acc = acc + tap(p.x, y + h) * 0.5;
        acc = acc + tap(p.x, y + r) * 0.25;
        dst[p.y * pc.width + p.x] = acc;
    }
    p3_group_end();
}
