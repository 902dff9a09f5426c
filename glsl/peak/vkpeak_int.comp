#version 450
// Peak calibration: vkpeak's int64 kernel (by default) or its int32 kernel (INT32) as vkpeak
// compiles them (vkpeak.cpp 74f5285, glsl_int64_p1_dual_data and glsl_int32_p1_dual_data),
// statement for statement: T = int64_t (int), c0 = a = T(gx), c1 = b = T(lx),
// `c0 = a * c0 + b; c1 = a * c1 + b;` written out 8 times in a loop whose trip count is a
// specialization constant, and c0 + c1 stored to c_blob_data[gx]. The only changes are
// the bindings (the workgroup size is specialization constant 0, the trip count constant 1)
// and p3lab's subgroup probe, which every shader calls first (NOPROBE leaves it out, and the
// subgroup size that ran is then not measured: on an H100 the kernel ran 0.00-0.07 % faster
// without it, reports/nvidia-h100/i26-vkpeak callK).
//
// Nothing is checked in the shader (int.comp's VKPEAK form checks itself, at the price of an
// epilogue): the CPU references `peak_int64_vk` and `peak_int32_vk` compute every
// invocation's c0 + c1 (f^n by squaring, f(x) = gx x + lx, n = 8 * loop, modulo 2^64 or 2^32),
// so a kernel that skips, truncates or reorders the work fails the check on every invocation
// it got wrong.
#include "p3lab.glsl"
#ifdef INT32
#define T int
#else
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define T int64_t
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int loop = 1;

layout(set = 0, binding = 0, std430) writeonly buffer c_blob { T c_blob_data[]; };

void main()
{
#ifndef NOPROBE
    p3_probe_record();
#endif
    const uint gx = gl_GlobalInvocationID.x;
    const uint lx = gl_LocalInvocationID.x;

    T c0 = T(gx);
    T c1 = T(lx);

    T a = c0;
    T b = c1;

    for (int i = 0; i < loop; i++)
    {
        c0 = a * c0 + b; c1 = a * c1 + b;
        c0 = a * c0 + b; c1 = a * c1 + b;
        c0 = a * c0 + b; c1 = a * c1 + b;
        c0 = a * c0 + b; c1 = a * c1 + b;
        c0 = a * c0 + b; c1 = a * c1 + b;
        c0 = a * c0 + b; c1 = a * c1 + b;
        c0 = a * c0 + b; c1 = a * c1 + b;
        c0 = a * c0 + b; c1 = a * c1 + b;
    }

    c0 = c0 + c1;
    c_blob_data[gx] = c0;
}
