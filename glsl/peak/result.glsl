// The self-check every calibration kernel ends with (p3lab peak). Each invocation computes a
// result it can verify itself; the first 1024 invocations store result / expected in
// sink[0..1024) (1.0 when right), and any invocation whose result is wrong sets sink[1024] to
// 1.0 and sink[1025] to its result. The CPU reference `peak_sink` expects 1024 ones and two
// zeros, so one wrong invocation anywhere in the grid fails the check.
//
// The comparison runs in every invocation, so no compiler may drop or shorten the work that
// feeds it; the stores are rare and cost nothing measurable.
#ifndef P3LAB_PEAK_RESULT
#define P3LAB_PEAK_RESULT

layout(set = 0, binding = 2, std430) buffer Sink { float sink[]; };

// `r` must be within `tol` of `expected`, relatively (tol = 0: exactly).
void peak_result(uint id, float r, float expected, float tol) {
    float q = r / expected;
    if (!(abs(q - 1.0) <= tol)) {
        sink[1024] = 1.0;
        sink[1025] = r;
    } else if (id < 1024u) {
        sink[id] = q;
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
