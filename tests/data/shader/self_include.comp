#version 450
// Includes a file that includes itself with no include guard: p3lab must stop with an error,
// not recurse until memory runs out (tests/bad_input.rs).
layout(local_size_x = 1) in;
#include "include_loop.glsl"
void main() {}
