// p3lab's subgroup-size probe for HLSL shaders (the GLSL one is p3lab.glsl): call
// p3_probe_record() once per invocation, as the GLSL shaders do, and p3lab reads the subgroup
// ("wave") sizes that actually ran and the fewest active lanes of any wave. p3lab binds the
// probe buffer at set P3_PROBE_SET (3), binding 0, and defines P3_PROBE_SET itself. Per-group
// probes (--probe) are GLSL-only.
#ifndef P3LAB_HLSL
#define P3LAB_HLSL

#ifndef P3_PROBE_SET
#define P3_PROBE_SET 3
#endif

// [0] smallest wave size, [1] largest, [2] fewest active lanes, [3] reserved.
[[vk::binding(0, P3_PROBE_SET)]] RWStructuredBuffer<uint> p3_probe;

void p3_probe_record() {
    uint lanes = WaveActiveCountBits(true);
    if (WaveIsFirstLane()) {
        uint size = WaveGetLaneCount();
        uint previous;
        // Read first: the atomics run only when this wave changes the value.
        if (size < p3_probe[0]) {
            InterlockedMin(p3_probe[0], size, previous);
        }
        if (size > p3_probe[1]) {
            InterlockedMax(p3_probe[1], size, previous);
        }
        if (lanes < p3_probe[2]) {
            InterlockedMin(p3_probe[2], lanes, previous);
        }
    }
}

#endif
