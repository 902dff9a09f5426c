//! The enums of a results row, spelled in the CSV as their `as_str`. Every spelling a p3lab
//! ever wrote reads back (a test walks the committed runs under reports/).
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `mode`: warm or cold caches (the scenario's own type; a row says which it was timed in).
pub use crate::scenario::{Fresh, Mode};

/// A row's status: why it has (or has no) timings.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    /// Ran, output checked (or no check declared), timed.
    Ok,
    /// This device cannot run it (a feature, extension or limit); the run goes on.
    Unsupported,
    /// shaderc rejected the variant (`--keep-going` only).
    CompileError,
    /// Outputs differ from the baseline or the reference; not timed.
    CheckFailed,
    /// Anything else. The default, so a row nobody decided on never reads `ok`.
    #[default]
    Error,
}

impl RowStatus {
    /// Every status, in declaration order (`ok` first): for counting rows per status.
    pub const ALL: [RowStatus; 5] = [
        RowStatus::Ok,
        RowStatus::Unsupported,
        RowStatus::CompileError,
        RowStatus::CheckFailed,
        RowStatus::Error,
    ];

    /// The CSV spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RowStatus::Ok => "ok",
            RowStatus::Unsupported => "unsupported",
            RowStatus::CompileError => "compile_error",
            RowStatus::CheckFailed => "check_failed",
            RowStatus::Error => "error",
        }
    }

    /// The status a CSV cell spells ([`RowStatus::as_str`]); `None` for any other text.
    pub fn parse(s: &str) -> Option<RowStatus> {
        RowStatus::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Rows with this status fail the run (exit 3).
    pub fn fails_run(self) -> bool {
        matches!(
            self,
            RowStatus::CompileError | RowStatus::CheckFailed | RowStatus::Error
        )
    }
}

impl std::fmt::Display for RowStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A typed cell as the CSV writes it: empty for None.
pub fn cell<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref().map(T::to_string).unwrap_or_default()
}

/// An enum written as one of a fixed set of words.
macro_rules! words {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal,)+ }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $v,)+ }

        impl $name {
            /// Every value, in declaration order (the known spellings an error lists).
            pub const ALL: &'static [$name] = &[$($name::$v,)+];

            /// The CSV spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s,)+ }
            }

            /// The value a CSV cell spells ([`Self::as_str`]); `None` for any other text (an empty
            /// cell included).
            pub fn parse(s: &str) -> Option<$name> {
                match s { $($s => Some($name::$v),)+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let s = String::deserialize(d)?;
                $name::parse(&s).ok_or_else(|| {
                    let known: Vec<&str> = $name::ALL.iter().map(|x| x.as_str()).collect();
                    serde::de::Error::custom(format!(
                        "`{s}` is not one of {}", known.join(", ")
                    ))
                })
            }
        }
    };
}

words! {
    /// `check`: what the output check said.
    Check {
        /// The outputs matched the reference or the baseline.
        Pass = "pass",
        /// They did not (`status = check_failed`).
        Fail = "fail",
        /// The variant the others are checked against.
        Baseline = "baseline",
        /// No check declared.
        None = "none",
        /// The check had nothing to compare against: the variant checks against a baseline
        /// variant that produced no outputs (`check_detail` says which); a row that failed
        /// before its check reads `none`.
        Skipped = "skipped",
    }
}

words! {
    /// `stop_reason`: why a variant's rounds stopped.
    StopReason {
        /// The median's CI half-width fell below the target (and no trend was seen).
        Target = "target",
        /// Its batches took the time budget.
        Budget = "budget",
        /// `max_rounds` ran.
        MaxRounds = "max_rounds",
        /// The rounds agree to within the timer's step: the CI is as narrow as the timer can
        /// tell, and more rounds cannot narrow it.
        Resolution = "resolution",
        /// No rounds: an earlier run timed the variant and this one only counts it, its
        /// counter batch sized from that time (`p3lab peak`'s own-counter run, `OUT/own/`).
        TimedBefore = "timed_before",
    }
}

words! {
    /// `memory_level`: where the declared traffic was counted.
    MemoryLevel {
        /// The footprint does not fit the measured L2, or the row is cold mode: DRAM.
        Dram = "dram",
        /// The footprint fits in the measured L2 in warm mode.
        L2 = "l2",
    }
}

words! {
    /// `placement`: the placement check's verdict.
    Placement {
        /// Moving the case's resources to new memory moved the time beyond the rounds' 99 %
        /// prediction interval and by at least 1 %, confirmed by a second round.
        Sensitive = "sensitive",
        /// The check's round stayed within the prediction interval, or moved by less than 1 %,
        /// or a second round did not confirm it.
        Stable = "stable",
    }
}

words! {
    /// `limiter_source`: where `limiter` came from.
    LimiterSource {
        /// The hardware counters.
        Counted = "counted",
        /// The scenario's declared work and p3lab's peaks.
        Declared = "declared",
    }
}

/// `limiter`, `hw_limiter`, `declared_limiter`: what limits a variant. Busy units are
/// `+`-joined, busiest first (`dram+l2`); unit names are open (the counted ones are the
/// hardware's: `sm`, `l1tex`; the declared ones p3lab's peaks: `fp32`, `texture`, `launch`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Limiter {
    /// One or more units at or past the busy threshold, busiest first.
    Units(Vec<String>),
    /// No unit busy: the time goes to waiting.
    Latency,
    /// No unit busy, and too few warps resident to hide the waiting.
    Occupancy,
    /// Nothing to judge (no peaks or no declared work).
    None,
}

impl Limiter {
    /// Reads a limiter cell: `latency`, `occupancy`, `none` or empty (→ [`Limiter::None`]), else
    /// `+`-joined unit names; never fails, unknown unit names are kept.
    pub fn parse(s: &str) -> Limiter {
        match s {
            "latency" => Limiter::Latency,
            "occupancy" => Limiter::Occupancy,
            "none" | "" => Limiter::None,
            units => Limiter::Units(units.split('+').map(String::from).collect()),
        }
    }

    /// A unit (or several) rather than a kind of waiting.
    pub fn is_unit(&self) -> bool {
        matches!(self, Limiter::Units(_))
    }

    /// The units, empty for latency, occupancy and none.
    pub fn units(&self) -> &[String] {
        match self {
            Limiter::Units(u) => u,
            _ => &[],
        }
    }

    /// A limiter of the single unit `unit` (no `+` split).
    pub fn one(unit: &str) -> Limiter {
        Limiter::Units(vec![unit.to_string()])
    }
}

impl std::fmt::Display for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limiter::Units(u) => f.write_str(&u.join("+")),
            Limiter::Latency => f.write_str("latency"),
            Limiter::Occupancy => f.write_str("occupancy"),
            Limiter::None => f.write_str("none"),
        }
    }
}

impl Serialize for Limiter {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Limiter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Limiter, D::Error> {
        Ok(Limiter::parse(&String::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_reads_back_and_a_stranger_is_named() {
        for c in Check::ALL {
            assert_eq!(Check::parse(c.as_str()), Some(*c));
        }
        let e = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader("passed\n".as_bytes())
            .deserialize::<(Check,)>()
            .next()
            .unwrap()
            .unwrap_err();
        assert!(
            e.to_string().contains("`passed` is not one of pass, fail"),
            "{e}"
        );
        assert_eq!(Limiter::parse("dram+l2").units(), ["dram", "l2"]);
        assert_eq!(Limiter::parse("dram+l2").to_string(), "dram+l2");
        assert_eq!(Limiter::parse("latency"), Limiter::Latency);
    }
}
