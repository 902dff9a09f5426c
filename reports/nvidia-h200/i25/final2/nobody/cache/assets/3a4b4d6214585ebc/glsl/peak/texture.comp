#version 450
// Peak calibration: texture fetch rate (texels/s), point or bilinear (the sampler's filter
// decides). A small rgba8 image (64 x 64, 16 KiB: every SM's texture cache holds it) is
// sampled ITERS times per thread (a multiple of ACC) with texture(), each warp at 32 neighbouring texels that
// move by one texel per iteration, so the fetches hit the cache and the texture units are
// what limits. One texture() call counts as one fetch, bilinear too.
//
// The image holds 128 (128/255 as UNORM) in every channel, so every fetch returns 128/255,
// filtered or not, and the sum of the fetches must be 4 * ITERS * 128/255 (1e-4 relative, for the
// filtering weights' rounding): the self-check (glsl/peak/result.glsl).
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require

#ifndef ACC
#define ACC 1
#endif

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D img;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

void main() {
    p3_probe_record();
    vec2 inv = 1.0 / vec2(textureSize(img, 0));
    // Half a texel off the centres, so the bilinear filter really blends four texels.
    vec2 uv = (vec2(gl_LocalInvocationID.xy) + vec2(0.25, 0.75)) * inv;
    // ACC independent accumulators: more fetches in flight per thread.
    vec4 a[ACC];
    [[unroll]] for (uint k = 0; k < ACC; ++k) {
        a[k] = vec4(0.0);
    }
    for (uint i = 0; i < pc.iters; i += ACC) {
        [[unroll]] for (uint k = 0; k < ACC; ++k) {
            uint j = i + k;
            a[k] += texture(img, uv + vec2(float(j & 63u), float((j >> 6) & 63u)) * inv);
        }
    }
    vec4 acc = vec4(0.0);
    [[unroll]] for (uint k = 0; k < ACC; ++k) {
        acc += a[k];
    }
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 8u;
    peak_result(id, acc.x + acc.y + acc.z + acc.w, 4.0 * float(pc.iters) * (128.0 / 255.0), 1e-4);
}
