#version 450
// saxpy: y[i] = A * x[i] + y[i] for i < n.
// Each invocation handles ITEMS elements, strided by the workgroup size so that
// neighbouring invocations touch neighbouring elements on every iteration.
#include "p3lab.glsl"

// Workgroup size from specialization constants 0, 1, 2: p3lab sets them from `workgroup`.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

// The scalar a, set per variant with `spec = { "3" = ... }`.
layout(constant_id = 3) const float A = 1.0;

// Elements per invocation; p3lab passes it as a define from the variant's matrix.
#ifndef ITEMS
#define ITEMS 1
#endif

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) buffer Y { float y[]; };

layout(push_constant) uniform Push { uint n; } pc;

void main() {
    p3_probe_record();
    uint base = gl_WorkGroupID.x * gl_WorkGroupSize.x * ITEMS + gl_LocalInvocationID.x;
    for (uint k = 0; k < ITEMS; ++k) {
        uint i = base + k * gl_WorkGroupSize.x;
        if (i < pc.n) {
            y[i] = A * x[i] + y[i];
        }
    }
}
