#version 450
// Issue 26 texture sweep (from glsl/peak/texture.comp): point-sampled texture() vs textureLod()
// vs texelFetch() on rgba8 / rgba16f / rgba32f 64 x 64 images (every texel holds V), same
// access pattern: each warp reads 32 neighbouring texels that move by one texel per iteration.
//   FMT 0: rgba8 (binding 0, V = 128/255), 1: rgba16f (binding 1, V = 0.5), 2: rgba32f (binding 3, V = 0.5)
//   PATH 0: texture(), 1: texelFetch(), 2: textureLod(.., 0)
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require
#ifndef ACC
#define ACC 1
#endif
#ifndef FMT
#define FMT 0
#endif
#ifndef PATH
#define PATH 0
#endif
#if FMT == 0
#define BIND 0
#define V (128.0 / 255.0)
#elif FMT == 1
#define BIND 1
#define V 0.5
#else
#define BIND 3
#define V 0.5
#endif
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = BIND) uniform sampler2D img;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

void main() {
    p3_probe_record();
    vec2 inv = 1.0 / vec2(textureSize(img, 0));
    vec2 uv = (vec2(gl_LocalInvocationID.xy) + vec2(0.25, 0.75)) * inv;
    ivec2 lid = ivec2(gl_LocalInvocationID.xy);
    vec4 a[ACC];
    [[unroll]] for (uint k = 0; k < ACC; ++k) {
        a[k] = vec4(0.0);
    }
    for (uint i = 0; i < pc.iters; i += ACC) {
        [[unroll]] for (uint k = 0; k < ACC; ++k) {
            uint j = i + k;
#if PATH == 0
            a[k] += texture(img, uv + vec2(float(j & 63u), float((j >> 6) & 63u)) * inv);
#elif PATH == 1
            a[k] += texelFetch(img, (lid + ivec2(int(j & 63u), int((j >> 6) & 63u))) & 63, 0);
#else
            a[k] += textureLod(img, uv + vec2(float(j & 63u), float((j >> 6) & 63u)) * inv, 0.0);
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
