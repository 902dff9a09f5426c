#version 450
// 64 KiB of shared memory: over lavapipe's 32 KiB and the H200's 48 KiB.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer B { float v[]; };
shared float big[16384];
void main() {
    uint i = gl_LocalInvocationIndex;
    for (uint k = i; k < 16384; k += 64) big[k] = v[k];
    barrier();
    v[i] = big[16383 - i];
}
