#version 450
// Smoke test: a buffer pass that also samples an image, and a storage-image write.
// dst[i] = SCALE * src[i] + img(i mod W, (i div W) mod H).r;  out_img = 0.5 * img
#include "p3lab.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };
layout(set = 0, binding = 2) uniform sampler2D img;
layout(set = 0, binding = 3, rgba32f) uniform writeonly image2D out_img;

layout(push_constant) uniform Push { uint n; uint width; uint height; } pc;

#ifndef SCALE
#define SCALE 2.0
#endif

void main() {
    p3_probe_record();
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) {
        ivec2 p = ivec2(i % pc.width, (i / pc.width) % pc.height);
        dst[i] = SCALE * src[i] + texelFetch(img, p, 0).r;
    }
    if (i < pc.width * pc.height) {
        ivec2 p = ivec2(i % pc.width, i / pc.width);
        imageStore(out_img, p, 0.5 * texelFetch(img, p, 0));
    }
}
