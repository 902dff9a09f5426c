#version 450
// Peak calibration: texture fetch rate (texels/s) per format and fetch path. A small image
// (64 x 64: rgba8 16 KiB, rgba32f 64 KiB; every SM's texture cache holds it) is read ITERS
// times per thread (a multiple of ACC), each warp at 32 neighbouring texels that move by one
// texel per iteration, so the fetches hit the cache and the texture path is what limits. One
// call counts as one fetch, bilinear too.
//
//   PATH 0 (default)  texture(): point-sampled or bilinear, as the image's sampler filters
//   PATH 1            texelFetch(): unfiltered, integer coordinates (wrapped to the image)
//   BIND              the binding of the image to read (peaks/texture.toml gives each format
//                     and filter its own image); 0 by default
//   FLOAT_TEXELS      the image holds 0.5 in every channel (rgba16f, rgba32f); else 128
//                     (128/255 as UNORM: rgba8)
//   ALIGNED           each warp's 8 x 4 block of texels steps by its own footprint (8
//                     texels along x, 4 rows along y), so every fetch instruction reads a
//                     block aligned to the texture's tiles, as a filter whose taps sit at
//                     multiples of 8 does; without it the block moves by one texel, straddling
//                     tiles 7 times in 8 (issue 39: the tiling filter's aligned taps read 1.3x
//                     the unaligned calibration's rate)
//
// Every fetch returns V (0.5 or 128/255) in every channel, filtered or not, so the sum of the
// fetches must be 4 * ITERS * V (1e-4 relative, for the filtering weights' rounding): the
// self-check (glsl/peak/result.glsl).
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require

#ifndef ACC
#define ACC 1
#endif
#ifndef PATH
#define PATH 0
#endif
#ifndef BIND
#define BIND 0
#endif
#ifdef FLOAT_TEXELS
#define V 0.5
#else
#define V (128.0 / 255.0)
#endif

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = BIND) uniform sampler2D img;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

void main() {
    p3_probe_record();
#if PATH == 1
    ivec2 lid = ivec2(gl_LocalInvocationID.xy);
#else
    vec2 inv = 1.0 / vec2(textureSize(img, 0));
    // Half a texel off the centres, so the bilinear filter really blends four texels.
    vec2 uv = (vec2(gl_LocalInvocationID.xy) + vec2(0.25, 0.75)) * inv;
#endif
    // ACC independent accumulators: more fetches in flight per thread.
    vec4 a[ACC];
    [[unroll]] for (uint k = 0; k < ACC; ++k) {
        a[k] = vec4(0.0);
    }
    for (uint i = 0; i < pc.iters; i += ACC) {
        [[unroll]] for (uint k = 0; k < ACC; ++k) {
            uint j = i + k;
#ifdef ALIGNED
            ivec2 o = ivec2(int((j & 7u) * 8u), int(((j >> 3) & 15u) * 4u));
#else
            ivec2 o = ivec2(int(j & 63u), int((j >> 6) & 63u));
#endif
#if PATH == 1
            // The same texels as texture()'s: the 64 x 64 image wraps (`& 63`).
            a[k] += texelFetch(img, (lid + o) & 63, 0);
#else
            a[k] += texture(img, uv + vec2(o) * inv);
#endif
        }
    }
    vec4 acc = vec4(0.0);
    [[unroll]] for (uint k = 0; k < ACC; ++k) {
        acc += a[k];
    }
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 8u;
    peak_result(id, acc.x + acc.y + acc.z + acc.w, 4.0 * float(pc.iters) * V, 1e-4);
}
