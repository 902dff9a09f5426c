#version 450
// p3lab's cold-mode L2 eviction (src/measure/setup.rs, `[measure] evict = "read"`), built into
// the binary: reads `words` uvec4s of a buffer of p3lab's own, so the L2 fills with clean lines
// of it and nothing the timed work wrote stays behind to be written back inside its window.
// The sum is stored only when it equals a key no input gives in practice, so the loads stay.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1) writeonly buffer Sink { uint sink[]; };
layout(push_constant) uniform P { uint words; uint key; } p;

void main() {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uvec4 acc = uvec4(0u);
    for (uint i = gl_GlobalInvocationID.x; i < p.words; i += stride) {
        acc += src[i];
    }
    if (acc.x == p.key && acc.y == p.key && acc.z == p.key) {
        sink[0] = acc.w;
    }
}
