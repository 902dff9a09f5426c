#version 450
// Test shader: b = 3a (PASS 0) or b += 1 (PASS 1); BUG corrupts one element (BUG_AT, default 7), BREAK is a syntax error.
#include "p3lab.glsl"

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) buffer B { float b[]; };
layout(push_constant) uniform P { uint n; } pc;

#ifndef PASS
#define PASS 0
#endif

void main() {
    p3_probe_record();
    uint i = gl_GlobalInvocationID.x;
#ifdef BREAK
    this is not glsl;
#endif
    if (i < pc.n) {
#if PASS == 0
        b[i] = a[i] * 3.0;
#else
        b[i] = b[i] + 1.0;
#endif
#ifdef BUG
#ifndef BUG_AT
#define BUG_AT 7
#endif
        if (i == BUG_AT) b[i] = -1.0;
#endif
    }
}

// Declared and never used, at the end to keep the lines above where tests expect them:
// the optimizer removes it (issue 40).
#ifdef UNUSED_SPEC
layout(constant_id = 9) const uint UNUSED = 1u;
#endif
