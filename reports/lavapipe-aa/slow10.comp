#version 450
// A chain of FMAs per invocation, `iters` long: time grows with `iters`, so the variant with
// 10 % more iterations is a change of about 10 % made on purpose (issue 41's benchmark).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { float y[]; };
layout(push_constant) uniform Push { uint n; uint iters; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    float x = float(i) * 1e-6;
    for (uint k = 0u; k < pc.iters; ++k) {
        x = fma(x, 0.999, 0.001);
    }
    y[i] = x;
}
