//! Scenario files: the TOML model, integer expressions over params, and variant expansion.
pub mod block;
pub mod checks;
pub mod data;
pub mod error;
pub mod expr;
pub mod load;
pub mod model;
pub mod npy;
pub mod png;
pub mod refs;
pub mod resources;
pub mod settings;
pub mod types;
pub mod variant;

pub use error::ScenarioError;
pub use load::{load, load_with, parse, parse_set, parse_with, Overrides};
pub use types::*;
