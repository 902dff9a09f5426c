#version 450
// For tests/device_loss.rs: every variant writes b[x] = 3x for x in [2, 64). With FAULT defined
// each invocation first spins on an atomic read of b[1] until it sees 0x7E57FA17, which nothing
// ever writes, for at most ITERS iterations (default 2^32 - 1: hours of atomics on a GPU; lavapipe
// ends any loop after 65535 iterations).
// The marker is an OpConstant the loop compares against, so it survives the optimizer, and
// tests/fault_layer (VK_LAYER_P3LAB_fake_fault) recognizes the shader by it and fakes a lost or
// hung device. Variants without FAULT do not contain the marker.
#include "p3lab.glsl"

layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0, std430) buffer B { uint b[]; };

void main() {
    p3_probe_record();
#ifdef FAULT
#ifndef ITERS
#define ITERS 0xFFFFFFFFu
#endif
    // atomicAdd(.., 0) reads without changing the output; an atomic is never optimized away.
    for (uint i = 0u; i < ITERS; ++i) {
        if (atomicAdd(b[1], 0u) == 0x7E57FA17u) {
            break;
        }
    }
#endif
    if (gl_GlobalInvocationID.x >= 2u && gl_GlobalInvocationID.x < 64u) {
        b[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 3u;
    }
}
