// Thread-group ID swizzling ("thread-group tiling") for L2 locality, after
// seeds/000 (NVIDIA, "Optimizing Compute Shaders for L2 Locality using Thread-Group ID
// Swizzling"). Every function maps the LINEAR launch index of a workgroup,
//     idx = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x
// (row-major: the order in which the hardware launches a 2D grid), to the 2D group ID that
// the workgroup then works on. Each is a bijection of [0, grid.x * grid.y) onto the grid, for
// ANY grid size: tests/tiling_remap.rs ports them line for line to Rust and checks that with
// proptest. Keep the two in step.
//
// The article's first HLSL snippet (GDC 2019) was wrong when grid.x is not a multiple of N;
// the functions below are written from the description of the corrected algorithm: tiles of
// N groups along the primary direction spanning the whole grid along the other one, the last
// tile being only grid % N groups wide.
#ifndef TILING_REMAP_GLSL
#define TILING_REMAP_GLSL

// Baseline: the launch order itself (row-major).
uvec2 remap_rowmajor(uint idx, uvec2 grid) {
    return uvec2(idx % grid.x, idx / grid.x);
}

// Primary direction X: tiles of n columns x grid.y rows, launched left to right; inside a
// tile, groups go row by row (n groups along x, then the next row).
uvec2 remap_tile_x(uint idx, uvec2 grid, uint n) {
    uint tile_groups = n * grid.y;              // groups in one full tile
    uint tile = idx / tile_groups;              // every tile before this one is full
    uint in_tile = idx % tile_groups;
    uint x0 = tile * n;                         // first column of the tile
    uint w = min(n, grid.x - x0);               // the last tile is grid.x % n wide (if not 0)
    return uvec2(x0 + in_tile % w, in_tile / w);
}

// Primary direction Y: the same with the axes swapped: tiles of grid.x columns x n rows,
// launched top to bottom; inside a tile, groups go column by column.
uvec2 remap_tile_y(uint idx, uvec2 grid, uint n) {
    return remap_tile_x(idx, grid.yx, n).yx;
}

// Groups of the grid inside the s x s square at o (0 when they do not overlap).
uint morton_count(uvec2 o, uint s, uvec2 grid) {
    uint cx = o.x < grid.x ? min(s, grid.x - o.x) : 0u;
    uint cy = o.y < grid.y ? min(s, grid.y - o.y) : 0u;
    return cx * cy;
}

// Morton (Z) order on any grid: the idx-th group of the grid when all of its groups are sorted
// by the Morton code of (x, y). Iterating a Morton index over the padded power-of-two square
// would not be a bijection (it would hit groups outside the grid), so this descends the
// quadtree of the padded square instead: at each level it skips the quadrants (in Z order:
// (0,0), (1,0), (0,1), (1,1)) whose in-grid group counts the remaining index passes. Cost:
// log2(side) levels of at most 4 rectangle overlaps; no tables, no padding launched.
uvec2 remap_morton(uint idx, uvec2 grid) {
    uint s = 1u;
    while (s < max(grid.x, grid.y)) {
        s <<= 1;                                // side of the padded power-of-two square
    }
    uvec2 origin = uvec2(0u);
    uint rem = idx;
    while (s > 1u) {
        s >>= 1;                                // side of a quadrant
        for (uint q = 0u; q < 4u; ++q) {
            uvec2 o = origin + uvec2(q & 1u, q >> 1) * s;
            uint c = morton_count(o, s, grid);
            if (rem < c) {
                origin = o;
                break;
            }
            rem -= c;
        }
    }
    return origin;
}

#endif
