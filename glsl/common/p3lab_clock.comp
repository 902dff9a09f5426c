#version 450
// p3lab's clock gauge (src/measure/clock.rs), built into the binary: dispatched once after the
// timed repetitions of a batch, in the same submission, it tells the SM clock the batch ended
// at. One invocation reads the subgroup clock (SM cycles: clock2x32ARB) and the device's
// real-time clock (clockRealtime2x32EXT: ns on NVIDIA) together, spins until `cycles` SM
// cycles have passed, and reads both again. cycles / real-time ticks is the clock; both reads
// are on the same SM, so the subgroup clock is comparable with itself. The differences are
// taken in 32 bits: a spin is far shorter than 2^32 ticks of either clock.
// The same shader is the clock keeper: dispatched with many workgroups in a submission of its
// own that nobody waits for, it keeps every SM spinning for `cycles` while the host records
// the next batch, so the GPU is not left idle between batches (only invocation 0 of the whole
// grid writes its record, into slot `slot`).
#extension GL_ARB_shader_clock : require
#extension GL_EXT_shader_realtime_clock : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uvec4 rec[]; };
layout(push_constant) uniform P { uint cycles; uint slot; } p;

void main() {
    // As the gauge (slot 0) only invocation 0 spins.
    if (p.slot == 0u && gl_GlobalInvocationID.x != 0u) {
        return;
    }
    uvec2 r0 = clockRealtime2x32EXT();
    uvec2 c0 = clock2x32ARB();
    uvec2 c1 = c0;
    uint spins = 0u;
    while (c1.x - c0.x < p.cycles && spins < 100000000u) {
        c1 = clock2x32ARB();
        spins += 1u;
    }
    uvec2 r1 = clockRealtime2x32EXT();
    if (gl_GlobalInvocationID.x == 0u) {
        rec[p.slot] = uvec4(c1.x - c0.x, r1.x - r0.x, spins, 1u);
    }
}
