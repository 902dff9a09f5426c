#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { float values[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    // The next line uses an undeclared name on purpose: line 7.
    values[i] = undeclared_thing;
}
