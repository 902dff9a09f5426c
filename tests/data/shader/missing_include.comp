#version 450
// Line 3 includes a file that exists nowhere.
#include "does_not_exist.glsl"
layout(local_size_x = 64) in;
void main() {}
