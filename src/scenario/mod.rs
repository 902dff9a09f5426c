//! Scenario files: the TOML model, integer expressions over params, and variant expansion.
pub mod expr;
