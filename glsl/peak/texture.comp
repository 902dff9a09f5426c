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
//   OFFS              each iteration reads 8 texels at constant offsets (textureOffset,
//                     texelFetchOffset: the offsets sit in the instruction, so no address
//                     arithmetic per fetch), each warp's 8 x 4 block aligned as ALIGNED's;
//                     the block's base moves once per 8 fetches (issue 39: rgba8 read 77-87 %
//                     of the texture unit's counted rate with the address math per fetch)
//   CH                channels summed per fetch: 4 (default) or 1 (only .x: the fetch returns
//                     one register instead of four)
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
#ifndef CH
#define CH 4
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
#if CH == 1
#define ACCUM(k) a[(k) % ACC].x += t.x;
#else
#define ACCUM(k) a[(k) % ACC] += t;
#endif
#ifdef OFFS
    // ITERS is a multiple of 8. The offsets must be constant expressions, hence a macro.
#if PATH == 1
#define FETCH(k, dx, dy) t = texelFetchOffset(img, lid + base, 0, ivec2(dx, dy)); ACCUM(k)
#else
#define FETCH(k, dx, dy) t = textureOffset(img, buv, ivec2(dx, dy)); ACCUM(k)
#endif
    for (uint i = 0; i < pc.iters; i += 8u) {
        uint blk = i >> 3;
        // Base x in 8..32, y in 8..36: with the thread's 0..7 and the offsets' -8..7 every
        // texel lies inside the 64 x 64 image.
        ivec2 base = ivec2(8 + int((blk & 3u) << 3), 8 + int(((blk >> 2) & 7u) << 2));
#if PATH != 1
        vec2 buv = uv + vec2(base) * inv;
#endif
        vec4 t;
        FETCH(0, -8, -8) FETCH(1, 0, -8) FETCH(2, -8, -4) FETCH(3, 0, -4)
        FETCH(4, -8, 0) FETCH(5, 0, 0) FETCH(6, -8, 4) FETCH(7, 0, 4)
    }
#else
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
            vec4 t = texelFetch(img, (lid + o) & 63, 0);
#else
            vec4 t = texture(img, uv + vec2(o) * inv);
#endif
            ACCUM(k)
        }
    }
#endif
    vec4 acc = vec4(0.0);
    [[unroll]] for (uint k = 0; k < ACC; ++k) {
        acc += a[k];
    }
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 8u;
    peak_result(id, acc.x + acc.y + acc.z + acc.w, float(CH) * float(pc.iters) * V, 1e-4);
}
