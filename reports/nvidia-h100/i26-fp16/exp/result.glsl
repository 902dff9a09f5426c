// The self-check every calibration kernel ends with (p3lab peak). Each invocation computes a
// result it can verify itself; the first 1024 invocations store 1.0 in sink[0..1024) when
// theirs is right, and any invocation whose result is wrong sets sink[1024] to 1.0 and
// sink[1025] to its result. The CPU reference `peak_sink` expects 1024 ones and two zeros, so
// one wrong invocation anywhere in the grid fails the check.
//
// No division: GLSL's `/` may be a reciprocal and a multiply (2.5 ulp), and on the H200
// 1988.0 / 1988.0 came out as 0.99999994. Results are compared as computed.
//
// The comparison runs in every invocation, so no compiler may drop or shorten the work that
// feeds it; the stores are rare and cost nothing measurable.
#ifndef P3LAB_PEAK_RESULT
#define P3LAB_PEAK_RESULT

layout(set = 0, binding = 2, std430) buffer Sink { float sink[]; };

// `r` must be within `tol` of `expected`, relatively (tol = 0: exactly).
void peak_result(uint id, float r, float expected, float tol) {
    if (!(abs(r - expected) <= tol * abs(expected))) {
        sink[1024] = 1.0;
        sink[1025] = r;
    } else if (id < 1024u) {
        sink[id] = 1.0;
    }
}

// Integer results must be exact.
void peak_result_u(uint id, uint r, uint expected) {
    if (r != expected) {
        sink[1024] = 1.0;
        sink[1025] = float(r);
    } else if (id < 1024u) {
        sink[id] = 1.0;
    }
}
#endif
