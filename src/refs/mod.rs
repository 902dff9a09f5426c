//! CPU references of the scenario families (registered in `check::REFERENCES`).
pub mod occupancy;
pub mod patterns;
pub mod reduction;
pub mod tiling;
