//! How a scenario's outputs are checked: against a reference or a baseline variant.
use std::path::PathBuf;

/// A case's `[check]`, evaluated with its params.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// Resources to compare: `[check].outputs`, else every resource with `output = true` (never
    /// empty).
    pub outputs: Vec<String>,
    /// Absolute tolerance (`tolerance`, default 0, finite and non-negative).
    pub tolerance: f64,
    /// Relative tolerance, times the expected value (`rel_tolerance`, default 0): an element passes
    /// when |got − expected| ≤ tolerance + rel_tolerance × |expected|.
    pub rel_tolerance: f64,
    /// Where the expected outputs come from; None: only the baseline variant checks.
    pub reference: Option<Reference>,
    /// The variant every other variant is compared with; `None` when only a CPU reference checks.
    pub baseline: Option<String>,
    /// Where outputs are compared (`[check] on`).
    pub on: CheckOn,
}

/// Where a check's expected outputs come from (`[check] reference`).
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    /// A built-in CPU reference (src/scenario/refs), by name.
    Builtin(String),
    /// A command run in a scratch folder holding the case's inputs as `NAME.npy` and its
    /// params as `params.json`; it writes `NAME.npy` for each checked output.
    Command {
        /// The command and its arguments; an argument naming a file next to the scenario is
        /// made absolute.
        argv: Vec<String>,
        /// Seconds the command may run (`timeout_s`, default 60, at most 86400).
        timeout_s: f64,
    },
    /// Precomputed answers: (output, `.npy` file) per checked output, resolved for this case.
    Files(Vec<(String, PathBuf)>),
}

impl Reference {
    /// How messages name it: "`tiling_filter`", "command `python3 ref.py`", "files".
    pub fn label(&self) -> String {
        match self {
            Reference::Builtin(n) => format!("`{n}`"),
            Reference::Command { argv, .. } => format!("command `{}`", argv.join(" ")),
            Reference::Files(_) => "files".into(),
        }
    }
}

/// Where a check compares outputs: on the GPU with a compare shader (only a mismatch count and
/// the first mismatch come back), or on the host after reading them back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckOn {
    /// The GPU when a checked output is 1 MiB or larger, else the host.
    #[default]
    Auto,
    /// On the GPU with the compare shader, whatever the size.
    Gpu,
    /// On the host, after reading the outputs back, whatever the size.
    Host,
}
