// Includes itself, with no include guard (tests/data/shader/self_include.comp).
#include "include_loop.glsl"
