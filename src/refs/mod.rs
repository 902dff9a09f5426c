//! CPU references of the scenario families (registered in `check::REFERENCES`).
pub mod reduction;
pub mod tiling;
pub mod occupancy;
pub mod patterns;
