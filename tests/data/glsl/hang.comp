#version 450
// Never finishes when HANG is defined: spins on a value nothing writes (the atomic keeps the
// loop from being removed). Used to test that p3lab survives a hung device.
#include "p3lab.glsl"

layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0, std430) buffer B { uint b[]; };

void main() {
    p3_probe_record();
#ifdef HANG
    // lavapipe ends any loop after 65535 iterations, so "never finishes" is every invocation
    // of a large grid looping that long on atomics: hours of work on a CPU device.
#ifndef ITERS
#define ITERS 65535u
#endif
    for (uint i = 0u; i < ITERS; ++i) {
        if (atomicAdd(b[1], 0u) == 12345u) {
            break;
        }
        atomicAdd(b[0], 1u);
    }
#endif
    if (gl_GlobalInvocationID.x >= 2 && gl_GlobalInvocationID.x < 64u) {
        b[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 3u;
    }
}
