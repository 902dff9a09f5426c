#version 450
// Shared-memory bank conflicts (seeds/001 "Shared Memory: Avoid Bank Conflicts"; seeds/002
// "Group shared memory - LDS": reading x from a float4 array vs from an array of floats).
//
// Transpose the x channel of a W x H image of vec4 texels (row-major buffer) through a
// 32 x 32 tile in shared memory: dst[x * H + y] = src[y * W + x].x.
// Workgroup 32 x 8: each thread moves 4 texels. The tile is read back column-wise, so
// neighbouring lanes read shared words (32 + PAD) * sizeof(LDS_T) / 4 apart:
//   LDS_T = float, PAD = 0: 32 words apart, every lane in the same bank (32-way conflict);
//   LDS_T = float, PAD = 1: 33 words apart, every lane in a different bank (conflict-free);
//   LDS_T = vec4,  PAD = 0: 128 words apart, reading .x hits one bank (32-way);
//   LDS_T = vec4,  PAD = 1: 132 words apart, 8 distinct banks for 32 lanes (4-way), and the
//     row-wise store moves 16 bytes per lane instead of 4.
// Global traffic is the same in every variant; only the shared-memory layout changes.
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#define TILE 32u
#ifndef PAD
#define PAD 0
#endif
#ifndef LDS_T
#define LDS_T float
#endif

layout(set = 0, binding = 0, std430) readonly buffer Src { vec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };

layout(push_constant) uniform Push { uint width; uint height; } pc;

shared LDS_T tile[TILE][TILE + PAD];

void main() {
    p3_probe_record();
    uint lx = gl_LocalInvocationID.x;
    uint ly = gl_LocalInvocationID.y;
    uint rows = gl_WorkGroupSize.y;
    // Coalesced read of a 32 x 32 block of texels; the whole vec4 is loaded in every variant.
    uint x = gl_WorkGroupID.x * TILE + lx;
    uint y0 = gl_WorkGroupID.y * TILE + ly;
    for (uint j = 0u; j < TILE; j += rows) {
        vec4 p = src[(y0 + j) * pc.width + x];
        tile[ly + j][lx] = LDS_T(p);  // float(vec4) is its x
    }
    barrier();
    // Coalesced write of the transposed block: lanes walk a column of the tile.
    uint ox = gl_WorkGroupID.y * TILE + lx;
    uint oy0 = gl_WorkGroupID.x * TILE + ly;
    for (uint j = 0u; j < TILE; j += rows) {
        dst[(oy0 + j) * pc.height + ox] = float(tile[lx][ly + j]);
    }
}
