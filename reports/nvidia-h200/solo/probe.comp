#version 450
#include "p3lab.glsl"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) buffer Dst { uint dst[]; };
void main() { p3_probe_record(); dst[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 2u; }
