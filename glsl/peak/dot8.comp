#version 450
// Peak calibration: packed int8 dot-product throughput (dotPacked4x8EXT, GL_EXT_integer_dot_product:
// SPIR-V OpSDot with the 4x8-bit packed format; NVIDIA IDP4A, AMD v_dot4_i32_i8). Each
// dot-and-add counts 8 operations (4 multiplies, 4 adds), as vkpeak counts them.
//
// CHAINS independent chains per thread, x <- dot4x8(x, m) + c with m = pc.one (1: the bytes
// (1, 0, 0, 0)) and c = pc.two (2) from push constants, so the dot reads only x's low byte as a
// signed 8-bit value: x_1 = sext8(x_0) + 2, and x_n = sext8(x_0 + 2 (n - 1)) + 2 for every
// n >= 1 (adding 2 to x's low byte wraps it like the running sum). Every chain must end
// there (glsl/peak/result.glsl; sink[1025] is the number of chains that differ): the dot's
// operand is the chain itself, so no compiler can hoist it out of the loop, and a loop one
// iteration short or long fails. `iters` must be at least 1.
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require
#ifdef GL_EXT_integer_dot_product
#extension GL_EXT_integer_dot_product : require
#define DOT4X8(a, b) dotPacked4x8EXT(a, b)
#else
// A glslang before GL_EXT_integer_dot_product (Debian 12's glslang 12, which p3lab linked
// before it built its own 15.3): the same SPIR-V through GL_EXT_spirv_intrinsics, OpSDot
// (4450) with the capabilities DotProduct (6019) and DotProductInput4x8BitPacked (6018) and
// the packed vector format 4x8-bit (0).
#extension GL_EXT_spirv_intrinsics : require
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int p3_sdot(int a, int b, spirv_literal int format);
#define DOT4X8(a, b) p3_sdot(a, b, 0)
#endif

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

#ifndef CHAINS
#define CHAINS 8
#endif
#ifndef UNROLL
#define UNROLL 4
#endif

void main() {
    p3_probe_record();
    uint id = gl_GlobalInvocationID.x;
    int m = int(pc.one);
    int c = int(pc.two);
    int x[CHAINS];
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        // Every byte set: a dot that mixed up the bytes, or read them unsigned, differs.
        x[k] = int(((id * 7u + uint(k) * 37u) & 0xffu) * 0x01010101u);
    }
    uint i = 0u;
    for (; i + uint(UNROLL) <= pc.iters; i += uint(UNROLL)) {
        [[unroll]] for (int u = 0; u < UNROLL; ++u) {
            [[unroll]] for (int k = 0; k < CHAINS; ++k) {
                x[k] = DOT4X8(x[k], m) + c;
            }
        }
    }
    for (; i < pc.iters; ++i) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            x[k] = DOT4X8(x[k], m) + c;
        }
    }
    uint bad = 0u;
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        int x0 = int((id * 7u + uint(k) * 37u) & 0xffu);
        int want = bitfieldExtract(x0 + int(pc.iters - 1u) * c, 0, 8) + c;
        bad += x[k] != want ? 1u : 0u;
    }
    peak_result_u(id, bad, 0u);
}
