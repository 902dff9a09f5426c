//! Step 1: which variants of a params case run, in which order, and how long each is timed.
use crate::measure::options::RunOptions;
use crate::results::RowKey;
use crate::scenario::Fresh;
use crate::scenario::{Case, Scenario, Variant};

/// How one params case is measured: its variants and the settings of its rounds.
pub struct CasePlan<'c> {
    /// Variants in the order they are built and checked: the check's baseline first, so the
    /// others can be compared with its outputs.
    pub order: Vec<&'c Variant>,
    /// Per entry of `order`: whether it gets rows. The baseline runs for its outputs even
    /// when `--filter` (or `--resume`) leaves it out; then it gets no row and is not timed.
    pub selected: Vec<bool>,
    /// The `[check].baseline` variant's name, if the case names one (it runs first).
    pub baseline: Option<&'c str>,
    /// The case's `[measure]` settings with the command line's overrides.
    pub settings: Settings,
}

/// The measurement settings of a case: `[measure]`, overridden by the command line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Rounds that always run, and at most.
    pub min_rounds: u32,
    /// Kept rounds at most (`--max-rounds`, else `measure.max_rounds`), never below `min_rounds`.
    pub max_rounds: u32,
    /// Stop a variant once its median's CI half-width is below this, in %.
    pub ci_target_pct: f64,
    /// ...or once its batches have taken this much wall time, in ns.
    pub budget_ns: f64,
    /// Timed repetitions per batch, at least.
    pub reps: u32,
    /// Untimed repetitions at the start of every batch.
    pub untimed: u32,
    /// GPU time of the warm-up before the case's first round, ms (0: none at all).
    pub warmup_ms: u64,
    /// Fence timeout of one submission, ms (`measure.timeout_ms`).
    pub timeout_ms: u64,
    /// `--seed`: the seed the round orders and placement recipes derive from.
    pub seed: u64,
    /// What each round after the first makes anew.
    pub fresh: Fresh,
    /// One more round per case after the rounds, with the resources moved (not with
    /// `fresh` moving them every round anyway).
    pub placement_check: bool,
    /// How many placements the case is measured over (with `placement_check`).
    pub placements: crate::scenario::Placements,
}

impl Settings {
    /// The settings of `case` under `opts`: each command-line value replaces the case's; at least 2
    /// rounds and 1 repetition; the placement check off with `fresh` resources or `placements = 1`,
    /// on with `placements` ≥ 2.
    pub fn of(case: &Case, opts: &RunOptions) -> Settings {
        let min_rounds = opts.rounds.unwrap_or(case.rounds).max(2);
        Settings {
            min_rounds,
            max_rounds: opts.max_rounds.unwrap_or(case.max_rounds).max(min_rounds),
            ci_target_pct: opts.ci_target_pct.unwrap_or(case.ci_target_pct),
            budget_ns: opts.budget_ms.unwrap_or(case.budget_ms) * 1e6,
            reps: opts.reps.unwrap_or(case.reps).max(1),
            untimed: opts.warmup.unwrap_or(case.warmup),
            warmup_ms: opts.warmup_ms.unwrap_or(case.warmup_ms),
            timeout_ms: case.timeout_ms,
            seed: opts.seed,
            fresh: case.fresh,
            // `placements = N` (N >= 2) asks for the placements whatever measure.placement_check
            // says; `placements = 1` turns the check off.
            placement_check: (case.placement_check
                || matches!(case.placements, crate::scenario::Placements::Fixed(n) if n >= 2))
                && !case.fresh.resources()
                && case.placements != crate::scenario::Placements::Fixed(1),
            placements: case.placements,
        }
    }
}

/// Does `v` get rows in this run: it matches `--filter` and (`--resume`) has no rows yet?
pub fn selected(opts: &RunOptions, sc: &Scenario, case: &Case, v: &Variant) -> bool {
    let done = !opts.skip.is_empty()
        && case.modes.iter().all(|m| {
            opts.skip.contains(&RowKey {
                scenario: sc.name.clone(),
                variant: v.name.clone(),
                params: case.params_label.clone(),
                mode: m.label().into(),
            })
        });
    opts.filter_matches(sc, v) && !done
}

impl<'c> CasePlan<'c> {
    /// The plan of `case`: its selected variants, with the baseline first (kept, unselected, when
    /// only its outputs are needed).
    pub fn new(opts: &RunOptions, sc: &Scenario, case: &'c Case) -> CasePlan<'c> {
        let baseline = case.check.as_ref().and_then(|c| c.baseline.as_deref());
        let mut order: Vec<&Variant> = case.variants.iter().collect();
        if let Some(pos) = order.iter().position(|v| Some(v.name.as_str()) == baseline) {
            let b = order.remove(pos);
            order.insert(0, b);
        }
        let keep: Vec<(&Variant, bool)> = order
            .into_iter()
            .map(|v| (v, selected(opts, sc, case, v)))
            .filter(|(v, sel)| *sel || Some(v.name.as_str()) == baseline)
            .collect();
        CasePlan {
            order: keep.iter().map(|(v, _)| *v).collect(),
            selected: keep.iter().map(|(_, s)| *s).collect(),
            baseline,
            settings: Settings::of(case, opts),
        }
    }

    /// Nothing in this case gets a row.
    pub fn is_empty(&self) -> bool {
        !self.selected.iter().any(|s| *s)
    }

    /// Whether `v` is the case's `[check].baseline`.
    pub fn is_baseline(&self, v: &Variant) -> bool {
        Some(v.name.as_str()) == self.baseline
    }
}
