#version 450
// Peak calibration: DRAM / L2 bandwidth. MODE 0 = read, 1 = write, 2 = copy.
// vec4 accesses, a grid-stride loop over `words` vec4s, UNROLL independent accesses per thread
// in flight, `passes` passes per dispatch.
//
// Self-checks: read mode sums what it loads from a buffer of 1.0s (init constant), and the
// sum of the loaded components must be exactly 4 x the loads in every invocation (glsl/peak/result.glsl);
// write mode stores (i, 1, 2, 3) at vec4 i (CPU reference `peak_write`); copy mode copies src
// to dst (CPU reference `peak_copy`).
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { vec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { vec4 dst[]; };
layout(push_constant) uniform P { uint words; uint passes; } pc;

#ifndef MODE
#define MODE 0
#endif
#ifndef UNROLL
#define UNROLL 4
#endif

void main() {
    p3_probe_record();
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint first = gl_GlobalInvocationID.x;
    vec4 acc = vec4(0.0);
    uint loads = 0u;
    for (uint p = 0; p < pc.passes; ++p) {
        // Each pass starts elsewhere (by a multiple of 32 vec4s, so accesses stay coalesced):
        // a workgroup then reads different data every pass, and repeated passes over a small
        // buffer come from L2, not from the SM's own L1.
        uint shift = (p * ((pc.words / max(pc.passes, 1u) + 31u) & ~31u)) % max(pc.words, 1u);
        for (uint base = first; base < pc.words; base += stride * UNROLL) {
            [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
                uint j = base + u * stride;
                uint i = j + shift < pc.words ? j + shift : j + shift - pc.words;
                if (j < pc.words) {
#if MODE == 0
                    acc += src[i];
                    loads += 1u;
#elif MODE == 1
                    dst[i] = vec4(float(i), 1.0, 2.0, 3.0);
#else
                    dst[i] = src[i];
#endif
                }
            }
        }
    }
#if MODE == 0
    peak_result(first, acc.x + acc.y + acc.z + acc.w, 4.0 * float(loads), 0.0);
#endif
}
