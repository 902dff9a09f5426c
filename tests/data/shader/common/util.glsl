// Shared helper pulled in through CompileRequest::include_dirs.
float scaled(float x, float s) { return x * s; }
