// Shared part of the parallel-reduction ladder (scenarios/reduction.toml): bindings, the
// per-invocation "prefetch" of its pixels, and the write of one group's result.
//
// Each workgroup reduces one TILE x TILE block of an RGBA32F image (a storage buffer of vec4,
// row-major, like the article's structured buffer) to the mean luminance of the block.
// Pixels outside the image count as 0 and the mean divides by TILE*TILE, as the article's
// `sharedMem[0] / (THREADX * THREADY)` does for whole tiles.
#ifndef REDUCTION_TILE_GLSL
#define REDUCTION_TILE_GLSL

#ifndef TILE
#error "TILE (pixels per tile side) must be defined by the scenario"
#endif

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) restrict readonly buffer Pixels { vec4 pixels[]; };
layout(set = 0, binding = 1, std430) restrict writeonly buffer Lum { float lum[]; };

layout(push_constant) uniform Push {
    uint width;
    uint height;
} pc;

// Invocations per workgroup (a specialization constant: p3lab sets the workgroup size).
const uint N = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;

// The article's luminance weights (its LumVector).
const vec3 LUM_WEIGHTS = vec3(0.2125, 0.7154, 0.0721);

// The sum of the luminance of this invocation's TILE*TILE/N pixels, added in registers before
// anything reaches shared memory: the article's "pre-fetching" when TILE*TILE/N > 1.
// Invocation GI takes pixels GI, GI + N, GI + 2N, ... of the tile (row-major inside the tile),
// so on every iteration neighbouring invocations read neighbouring pixels (coalesced). The
// article reads its values at idx*V, idx*V + 1, ... instead: the same set of pixels per group,
// summed in another order.
float prefetch_luminance() {
    const uint PER_INVOCATION = (TILE * TILE) / N;
    uint gi = gl_LocalInvocationIndex;
    uint x0 = gl_WorkGroupID.x * TILE;
    uint y0 = gl_WorkGroupID.y * TILE;
    float sum = 0.0;
    for (uint k = 0; k < PER_INVOCATION; ++k) {
        uint p = gi + k * N;
        uint x = x0 + p % TILE;
        uint y = y0 + p / TILE;
        if (x < pc.width && y < pc.height) {
            sum += dot(pixels[y * pc.width + x].rgb, LUM_WEIGHTS);
        }
    }
    return sum;
}

// Write the group's mean luminance (TILE*TILE is a power of two: the scale is exact).
void write_group_result(float group_sum) {
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    lum[g] = group_sum * (1.0 / float(TILE * TILE));
}

#endif
