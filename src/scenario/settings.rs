//! How a case is measured: caches warm or cold, how cold mode evicts, what each round makes anew.

/// What is made anew before each round after the first (`[measure] fresh`, `--fresh`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Fresh {
    /// One instance for all rounds.
    #[default]
    None,
    /// The variants' pipelines.
    Pipelines,
    /// The case's buffers and images (moved to new memory, contents kept).
    Resources,
    /// Both.
    All,
}

impl Fresh {
    /// The `--fresh` / `[measure].fresh` values, as they are spelled.
    pub const NAMES: [&'static str; 4] = ["all", "pipelines", "resources", "none"];

    /// The setting a `fresh` value names (one of [`Fresh::NAMES`]); None for anything else.
    pub fn parse(s: &str) -> Option<Fresh> {
        Some(match s {
            "all" => Fresh::All,
            "pipelines" => Fresh::Pipelines,
            "resources" => Fresh::Resources,
            "none" => Fresh::None,
            _ => return None,
        })
    }

    /// The value's spelling, as in [`Fresh::NAMES`], for run.json and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Fresh::All => "all",
            Fresh::Pipelines => "pipelines",
            Fresh::Resources => "resources",
            Fresh::None => "none",
        }
    }

    /// Whether each round after the first builds the variants' pipelines anew (`pipelines`, `all`).
    pub fn pipelines(self) -> bool {
        matches!(self, Fresh::All | Fresh::Pipelines)
    }

    /// Whether each round after the first moves the case's resources to new memory (`resources`,
    /// `all`).
    pub fn resources(self) -> bool {
        matches!(self, Fresh::All | Fresh::Resources)
    }
}

/// Over how many placements of its resources a case is measured (`[measure] placements`,
/// `--placements`): the first placement is where the case set them up; each further one
/// moves them to new memory ([`crate::measure::instance::Recipe`]) and runs
/// [`Placements::ROUNDS`] more rounds of every variant there (the second placement is the
/// placement check's, whose rounds then count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placements {
    /// One placement and the placement check; where the check finds a variant of the case
    /// whose time moved with its data, [`Placements::AUTO`] placements in all.
    #[default]
    Auto,
    /// Exactly this many (1: one placement, no placement check).
    Fixed(u32),
}

impl Placements {
    /// Placements of a case the placement check found sensitive, under `auto`: the first,
    /// the check's (its rounds count), and two more.
    pub const AUTO: u32 = 4;
    /// Rounds of every variant in each placement after the check's.
    pub const ROUNDS: u32 = 1;
    /// The most `--placements N` takes.
    pub const MAX: u32 = 64;

    /// `auto` or a whole number 1..=MAX.
    pub fn parse(s: &str) -> Result<Placements, String> {
        if s == "auto" {
            return Ok(Placements::Auto);
        }
        match s.parse::<u32>() {
            Ok(n) if (1..=Self::MAX).contains(&n) => Ok(Placements::Fixed(n)),
            _ => Err(format!(
                "`{s}` is not `auto` or a whole number of placements from 1 to {}",
                Self::MAX
            )),
        }
    }

    /// `auto`, or the number, as `--placements` takes it.
    pub fn label(self) -> String {
        match self {
            Placements::Auto => "auto".into(),
            Placements::Fixed(n) => n.to_string(),
        }
    }
}

/// How cold mode evicts the L2 before each repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evict {
    /// A compute pass reads `cold_bytes` of a buffer of p3lab's own: the L2 ends up full of
    /// clean lines, so nothing is written back inside the timed window.
    #[default]
    Read,
    /// `vkCmdFillBuffer` writes `cold_bytes`: the L2 ends up full of dirty lines, which the
    /// timed work then pays to write back (p3lab before issue 12).
    Write,
}

impl Evict {
    /// `read` or `write`: how `evict` and `--evict` spell it, and the `cold_evict` column.
    pub fn label(self) -> &'static str {
        match self {
            Evict::Read => "read",
            Evict::Write => "write",
        }
    }

    /// The method an `evict` value names (`read`, `write`); None for anything else.
    pub fn parse(s: &str) -> Option<Evict> {
        match s {
            "read" => Some(Evict::Read),
            "write" => Some(Evict::Write),
            _ => None,
        }
    }
}

/// How the caches stand when a repetition starts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Back-to-back repetitions: whatever the previous one left in the caches.
    Warm,
    /// The L2 evicted before every repetition, as a full-screen pass meets it in a frame.
    Cold,
}

impl Mode {
    /// `warm` or `cold`: the `mode` column and how `[measure].modes` spells it.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Warm => "warm",
            Mode::Cold => "cold",
        }
    }

    /// The mode a `modes` entry names (`warm`, `cold`); None for anything else.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "warm" => Some(Mode::Warm),
            "cold" => Some(Mode::Cold),
            _ => None,
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl std::fmt::Display for Fresh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
