#version 450
// Shared-memory reflection: a gl_WorkGroupSize-sized array, a spec-constant 2D array,
// an array of structs, a lone scalar, and an unused array (dropped from SPIR-V 1.4 on).
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 3) const uint TILE = 16;
struct Pair { float a; uint b; };
layout(std430, set = 0, binding = 0) buffer B { float v[]; };
shared float row[gl_WorkGroupSize.x];        // 4 * wg_x
shared vec4 tile[TILE][TILE + 1];            // 16 * TILE * (TILE + 1)
shared Pair pairs[8];                        // 64
shared uint counter;                         // 4
shared float twice[gl_WorkGroupSize.y * 2];  // 8 * wg_y
void main() {
    uint i = gl_LocalInvocationIndex;
    row[i] = v[i];
    tile[i % TILE][i % (TILE + 1)] = vec4(v[i]);
    pairs[i % 8] = Pair(v[i], i);
    twice[i % (gl_WorkGroupSize.y * 2)] = v[i];
    if (i == 0) counter = 0;
    barrier();
    atomicAdd(counter, 1);
    v[i] = row[(i + 1) % gl_WorkGroupSize.x] + tile[0][1].x + pairs[1].a + float(counter) + twice[0];
}
