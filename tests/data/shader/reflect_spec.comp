#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const float GAIN = 1.5;
layout(constant_id = 3) const bool FLAG = true;
layout(constant_id = 4) const int OFFSET = -2;
layout(std430, set = 0, binding = 0) buffer Out { float data[]; } outBuf;
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D img;
layout(set = 1, binding = 2) uniform Params { vec4 tint; } params;
layout(push_constant) uniform Push { uint count; float scale; vec2 offset; vec3 dir; } pc;
void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= pc.count) return;
    vec4 c = texture(tex, vec2(p) * pc.offset) * params.tint;
    if (FLAG) c *= GAIN;
    imageStore(img, ivec2(p) + OFFSET, c * pc.dir.x);
    if (subgroupElect()) outBuf.data[p.x] = c.x * pc.scale;
}
