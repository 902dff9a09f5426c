// p3lab's in-shader probe. Include it and call p3_probe_record() once at the top of main():
// the first workgroup's subgroups record the subgroup size that actually ran, so p3lab can
// write it beside the requested one instead of assuming it.
//
// p3lab binds the probe buffer at set P3_PROBE_SET (3), binding 0, and defines P3_PROBE_SET
// for every shader it compiles. The cost is one comparison per invocation and a few atomics in
// workgroup 0.
#ifndef P3LAB_GLSL
#define P3LAB_GLSL

#extension GL_KHR_shader_subgroup_basic : require

#ifndef P3_PROBE_SET
#define P3_PROBE_SET 3
#endif

layout(set = P3_PROBE_SET, binding = 0, std430) buffer P3Probe {
    uint subgroup_size_min;
    uint subgroup_size_max;
    uint reserved0;
    uint reserved1;
} p3_probe;

void p3_probe_record() {
    if (gl_WorkGroupID == uvec3(0) && subgroupElect()) {
        atomicMin(p3_probe.subgroup_size_min, gl_SubgroupSize);
        atomicMax(p3_probe.subgroup_size_max, gl_SubgroupSize);
    }
}

#endif
