// The tiling filter of glsl/tiling/filter.comp written in HLSL, with seeds/000's corrected
// thread-group tiling (NVIDIA, "Optimizing Compute Shaders for L2 Locality using Thread-Group
// ID Swizzling": the GDC 2019 snippet was wrong when the grid width is not a multiple of N;
// ThreadGroupTilingX below is the corrected version the article links, by Aditya Ukarande).
// shaderc compiles it as HLSL (entry CSMain); scenarios/tiling_hlsl.toml runs it beside the
// GLSL filter and checks that both write the same bits.
//
// Defines: ORDER 0 (row-major, the launch order itself) or 1 (tiles of TILE_N groups along X);
// WG_X x WG_Y threads per group (numthreads takes literals, so the workgroup size is a define).
#include "p3lab.hlsl"

#ifndef ORDER
#define ORDER 0
#endif
#ifndef TILE_N
#define TILE_N 16
#endif
#ifndef WG_X
#define WG_X 8
#endif
#ifndef WG_Y
#define WG_Y 8
#endif

Texture2D<float4> src : register(t0);    // set 0, binding 0 (a sampled image)
RWTexture2D<float4> dst : register(u1);  // set 0, binding 1 (a storage image)

struct Push {
    uint width;
    uint height;
    uint radius;   // R: taps at -R, -R/2, 0, R/2, R on each axis
};
[[vk::push_constant]] ConstantBuffer<Push> pc;

// Luminance difference up to which a tap counts (luminance = r + g + b, in [0, 3)).
static const float EDGE = 1.0;

// Divide the 2D dispatch grid into tiles of dimension [N, dispatchGridDim.y].
// "CTA" (Cooperative Thread Array) == thread group in DirectX terminology.
uint2 ThreadGroupTilingX(
    const uint2 dipatchGridDim,  // arguments of the Dispatch call (here from push constants)
    const uint2 ctaDim,          // already known in HLSL, e.g. [numthreads(8, 8, 1)] -> uint2(8, 8)
    const uint maxTileWidth,     // user parameter (N); recommended values: 8, 16 or 32
    const uint2 groupThreadID,   // SV_GroupThreadID
    const uint2 groupId)         // SV_GroupID
{
    // A perfect tile is one with dimensions = [maxTileWidth, dipatchGridDim.y]
    const uint Number_of_CTAs_in_a_perfect_tile = maxTileWidth * dipatchGridDim.y;

    // Possible number of perfect tiles
    const uint Number_of_perfect_tiles = dipatchGridDim.x / maxTileWidth;

    // Total number of CTAs present in the perfect tiles
    const uint Total_CTAs_in_all_perfect_tiles = Number_of_perfect_tiles * maxTileWidth * dipatchGridDim.y;
    const uint vThreadGroupIDFlattened = dipatchGridDim.x * groupId.y + groupId.x;

    // Tile_ID_of_current_CTA: current CTA to TILE-ID mapping.
    const uint Tile_ID_of_current_CTA = vThreadGroupIDFlattened / Number_of_CTAs_in_a_perfect_tile;
    const uint Local_CTA_ID_within_current_tile = vThreadGroupIDFlattened % Number_of_CTAs_in_a_perfect_tile;
    uint Local_CTA_ID_y_within_current_tile;
    uint Local_CTA_ID_x_within_current_tile;

    if (Total_CTAs_in_all_perfect_tiles <= vThreadGroupIDFlattened)
    {
        // Path taken only if the last tile has imperfect dimensions and CTAs from the last tile are launched.
        uint X_dimension_of_last_tile = dipatchGridDim.x % maxTileWidth;
        Local_CTA_ID_y_within_current_tile = Local_CTA_ID_within_current_tile / X_dimension_of_last_tile;
        Local_CTA_ID_x_within_current_tile = Local_CTA_ID_within_current_tile % X_dimension_of_last_tile;
    }
    else
    {
        Local_CTA_ID_y_within_current_tile = Local_CTA_ID_within_current_tile / maxTileWidth;
        Local_CTA_ID_x_within_current_tile = Local_CTA_ID_within_current_tile % maxTileWidth;
    }

    const uint Swizzled_vThreadGroupIDFlattened =
        Tile_ID_of_current_CTA * maxTileWidth +
        Local_CTA_ID_y_within_current_tile * dipatchGridDim.x +
        Local_CTA_ID_x_within_current_tile;

    uint2 SwizzledvThreadGroupID;
    SwizzledvThreadGroupID.y = Swizzled_vThreadGroupIDFlattened / dipatchGridDim.x;
    SwizzledvThreadGroupID.x = Swizzled_vThreadGroupIDFlattened % dipatchGridDim.x;

    uint2 SwizzledvThreadID;
    SwizzledvThreadID.x = ctaDim.x * SwizzledvThreadGroupID.x + groupThreadID.x;
    SwizzledvThreadID.y = ctaDim.y * SwizzledvThreadGroupID.y + groupThreadID.y;

    return SwizzledvThreadID.xy;
}

// The same arithmetic as filter.comp's filter_pixel, in the same order, with `precise` where
// it has it: power-of-two weights, exact f16 -> f32 inputs and no contraction make every
// output bit reproducible, so this must match the GLSL filter (and the CPU reference) exactly.
void filter_pixel(int2 p) {
    int2 size = int2(pc.width, pc.height);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    int r = int(pc.radius);
    int offs[5] = { -r, -(r / 2), 0, r / 2, r };
    float3 c0 = src.Load(int3(p, 0)).rgb;
    precise float l0 = (c0.r + c0.g) + c0.b;
    precise float4 acc = float4(0.0, 0.0, 0.0, 0.0);
    for (int j = 0; j < 5; ++j) {
        for (int i = 0; i < 5; ++i) {
            int2 q = clamp(p + int2(offs[i], offs[j]), int2(0, 0), size - 1);
            float3 c = src.Load(int3(q, 0)).rgb;
            precise float l = (c.r + c.g) + c.b;
            int ring = max(abs(i - 2), abs(j - 2));
            float ws = ring == 0 ? 1.0 : (ring == 1 ? 0.5 : 0.25);
            float w = abs(l - l0) <= EDGE ? ws : 0.0;
            acc += float4(w * c, w);
        }
    }
    dst[p] = acc;
}

[numthreads(WG_X, WG_Y, 1)]
void CSMain(uint3 groupThreadID : SV_GroupThreadID, uint3 groupID : SV_GroupID)
{
    p3_probe_record();
    // HLSL has no gl_NumWorkGroups: the grid comes from the image size, as p3lab covers it.
    uint2 grid = uint2((pc.width + WG_X - 1) / WG_X, (pc.height + WG_Y - 1) / WG_Y);
#if ORDER == 0
    uint2 p = groupID.xy * uint2(WG_X, WG_Y) + groupThreadID.xy;
#elif ORDER == 1
    uint2 p = ThreadGroupTilingX(grid, uint2(WG_X, WG_Y), TILE_N, groupThreadID.xy, groupID.xy);
#else
#error "ORDER must be 0 or 1"
#endif
    filter_pixel(int2(p));
}
