// Test shader (issue 40): tests/data/glsl/uniform_block.comp in HLSL: a cbuffer at b1 and a
// global outside any cbuffer, which HLSL gathers into `$Global` (binding 0).
RWStructuredBuffer<uint> o : register(u3);

cbuffer U : register(b1) {
    float alpha;
    uint n;
    float4 tint;
    half h;
    int2 big; // glslang's HLSL has no 64-bit integers: the i64's two words
};

uint g_n;

[numthreads(1, 1, 1)]
void main() {
    o[0] = asuint(alpha);
    o[1] = n;
    o[2] = asuint(tint.x);
    o[3] = asuint(tint.y);
    o[4] = asuint(tint.z);
    o[5] = asuint(tint.w);
    o[6] = asuint((float)h);
    o[7] = (uint)big.x;
    o[8] = (uint)big.y;
    o[9] = g_n;
}
