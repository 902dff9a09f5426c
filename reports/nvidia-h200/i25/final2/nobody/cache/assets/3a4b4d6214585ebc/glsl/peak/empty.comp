#version 450
// Peak calibration: the cost of a dispatch that does (nearly) nothing, and the workgroup
// launch rate. Invocation 0 of every workgroup writes its group's index + 1 to out[group], so
// the run checks itself (every group ran: CPU reference `peak_launch`) at the price of one
// 4-byte store per group.
#include "p3lab.glsl"
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0, std430) writeonly buffer Out { uint out_[]; };
void main() {
    p3_probe_record();
    if (gl_LocalInvocationIndex == 0u) {
        out_[gl_WorkGroupID.x] = gl_WorkGroupID.x + 1u;
    }
}
