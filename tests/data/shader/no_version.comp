// No `#version` line: glslang would compile it as GLSL ES 1.00, fail on its own compute
// built-ins and print them all (about 4,500 lines); p3lab must say so in one line
// (tests/bad_input.rs).
layout(local_size_x = 1) in;
void main() {}
