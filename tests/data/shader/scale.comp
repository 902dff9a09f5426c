#version 450
// Needs SCALE defined per variant and util.glsl from the common include dir.
#include "util.glsl"
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { float values[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    values[i] = scaled(values[i], SCALE);
}
