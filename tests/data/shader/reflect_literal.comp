#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 3) readonly buffer In { uint src[]; };
layout(std430, binding = 4) writeonly buffer Out { uint dst[]; };
void main() { dst[gl_GlobalInvocationID.x] = src[gl_GlobalInvocationID.x] + 1u; }
