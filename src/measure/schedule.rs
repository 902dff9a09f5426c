//! Step 6: the rounds. Every round runs one batch of each variant still being measured, in
//! an order shuffled per round from a seed (so drift, clocks and neighbours hit every variant
//! alike, and two variants can be paired round by round); a variant stops when its median's
//! CI is narrow enough, its time budget is spent, or the rounds run out.
pub use crate::measure::left_out::{
    above_median_pct, leading_warmup, pooled_placement_sd, transients, TRANSIENT_PCT,
};
use crate::measure::plan::Settings;
use crate::stats;
use crate::stats::inference;
pub use crate::stats::inference::{placement_verdict, PLACEMENT_PCT};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The order of round `round`: a permutation of `0..n`, the same for the same seed, case,
/// mode and round (so run.json's seed reproduces it).
pub fn round_order(seed: u64, case_key: &str, mode: &str, round: u32, n: usize) -> Vec<usize> {
    use sha2::{Digest, Sha256};
    let h = Sha256::digest(format!("{seed}\0{case_key}\0{mode}\0{round}").as_bytes());
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from_le_bytes(h[..8].try_into().expect("8")));
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng);
    order
}

pub use crate::results::StopReason;

/// One batch of one variant.
#[derive(Debug, Clone)]
pub struct Round {
    /// The round it belongs to, 0-based.
    pub round: u32,
    /// The variant's slot in the round's order.
    pub position: u32,
    /// Each timed repetition's span in the batch, ns (first dispatch's start to last dispatch's
    /// end).
    pub rep_ns: Vec<f64>,
    /// Per timed repetition, each pass's duration, ns: `pass_ns[rep][pass]`.
    pub pass_ns: Vec<Vec<f64>>,
    /// Median of `rep_ns`, ns: the round's one value in the statistics.
    pub median: f64,
    /// The timer's step seen in this batch's raw timestamps, ns.
    pub step_ns: f64,
    /// The placement of the case's resources it ran in (0: where the case set them up).
    pub placement: u32,
    /// The clock gauge's reading after the batch, SM cycles per real-time tick
    /// (measure/clock.rs); None without a gauge.
    pub clock: Option<f64>,
    /// Tries of the batch timed again before this one because the GPU had clocked down.
    pub redone: u32,
}

impl Round {
    fn of(round: u32, position: u32, b: crate::measure::batch::Batch) -> Round {
        let mut sorted = b.rep_ns.clone();
        sorted.sort_by(f64::total_cmp);
        Round {
            round,
            position,
            median: stats::median(&sorted),
            rep_ns: b.rep_ns,
            pass_ns: b.pass_ns,
            step_ns: b.step_ns,
            placement: 0,
            clock: b.clock,
            redone: b.redone,
        }
    }
}

/// A variant's rounds in one mode.
#[derive(Debug, Clone, Default)]
pub struct Track {
    /// Every batch in round order, warm-up and transient rounds included (the kept ones are
    /// [`Track::kept`]).
    pub rounds: Vec<Round>,
    /// Leading rounds left out as warm-up.
    pub discarded: usize,
    /// Indices into `rounds` of later rounds left out as transients ([`transients`]).
    pub transient: Vec<usize>,
    /// Per transient round (its index into `rounds`), how far above the median round it was
    /// when it was left out, %: the figure the rule tested (against the median of the rounds
    /// after the warm-up then, not the row's final median, which later rounds may move).
    pub transient_pct: std::collections::BTreeMap<usize, f64>,
    /// Wall time of its batches, ns.
    pub spent_ns: f64,
    /// Timed repetitions per batch, set from the check run's time (`reps_per_batch` column).
    pub reps_per_batch: u32,
    /// Why its rounds stopped (the `stop_reason` column: target, budget, max_rounds, resolution,
    /// or timed_before where none ran); None while it still runs.
    pub stop: Option<StopReason>,
    /// The placement check's rounds: after the rounds, with the case's resources moved to new
    /// memory (never among the kept rounds); a second one only to confirm the first.
    pub moved: Vec<Round>,
    /// The counter batch's values after the rounds (None: not run).
    pub hw: Option<crate::measure::hw::HwOutcome>,
    /// The placement check's verdict and its rounds' mean median, kept when those rounds
    /// joined the estimate as the second placement's ([`Track::adopt_moved`]).
    pub check: Option<(bool, f64)>,
    /// The SD a placement adds to this variant's time, as a fraction of it, pooled over the
    /// case's variants from the placement check's rounds ([`pooled_placement_sd`]) when the
    /// case stayed in one placement; None otherwise.
    pub placement_sd: Option<f64>,
}

impl Track {
    /// Record the batch `b` as round `round`, at slot `position` of the round's order; its wall
    /// time counts against the budget.
    pub fn push(&mut self, round: u32, position: u32, b: crate::measure::batch::Batch) {
        self.spent_ns += b.wall_ns;
        self.rounds.push(Round::of(round, position, b));
    }

    /// Record a round of placement `placement` after the first's rounds stopped (placements
    /// as a level of the design: runner/placement.rs).
    pub fn push_placed(
        &mut self,
        round: u32,
        position: u32,
        b: crate::measure::batch::Batch,
        placement: u32,
    ) {
        self.spent_ns += b.wall_ns;
        let mut r = Round::of(round, position, b);
        r.placement = placement;
        self.rounds.push(r);
    }

    /// The placement check's rounds become kept rounds of placement 1 (placements as a level
    /// of the design), its verdict kept in `check`.
    pub fn adopt_moved(&mut self) {
        if self.moved.is_empty() {
            return;
        }
        let mean = self.moved.iter().map(|r| r.median).sum::<f64>() / self.moved.len() as f64;
        self.check = self.placement_moved().map(|v| (v, mean));
        for mut r in self.moved.drain(..) {
            r.placement = 1;
            self.rounds.push(r);
        }
    }

    /// This variant's share of the pooled placement variance: the squared relative move of
    /// its check rounds' mean from its first placement's, less what the rounds' own noise
    /// explains (the check rounds' and the estimate's variances). None without check rounds
    /// or with fewer than two kept rounds.
    pub fn placement_excess(&self) -> Option<f64> {
        let base = self.base_medians();
        if self.moved.is_empty() || base.len() < 2 {
            return None;
        }
        let m0 = base.iter().sum::<f64>() / base.len() as f64;
        let n1 = self.moved.len() as f64;
        let m1 = self.moved.iter().map(|r| r.median).sum::<f64>() / n1;
        if m0 <= 0.0 {
            return None;
        }
        let sr = inference::sd(&base) / m0;
        let d = m1 / m0 - 1.0;
        Some(d * d - sr * sr / n1 - sr * sr / base.len() as f64)
    }

    /// Record the placement check's round.
    pub fn push_moved(&mut self, round: u32, position: u32, b: crate::measure::batch::Batch) {
        self.spent_ns += b.wall_ns;
        self.moved.push(Round::of(round, position, b));
    }

    /// The timer's step over the kept rounds: the smallest any batch showed (each is a
    /// multiple of the true step), 0 when none showed one.
    pub fn step_ns(&self) -> f64 {
        let kept = self.kept();
        let steps = kept.iter().map(|r| r.step_ns).filter(|s| *s > 0.0);
        steps.reduce(f64::min).unwrap_or(0.0)
    }

    /// The rounds the statistics use: after the warm-up, without transients.
    pub fn kept(&self) -> Vec<&Round> {
        (self.discarded.min(self.rounds.len())..self.rounds.len())
            .filter(|i| !self.transient.contains(i))
            .map(|i| &self.rounds[i])
            .collect()
    }

    /// What round `i` (an index into `rounds`) was, as samples.csv `phase` says: `kept`,
    /// `warmup` (a leading round left out) or `transient`.
    pub fn phase(&self, i: usize) -> &'static str {
        if self.is_kept(i) {
            "kept"
        } else if i < self.discarded {
            "warmup"
        } else {
            "transient"
        }
    }

    /// Whether round `i` (an index into `rounds`) counts in the statistics.
    pub fn is_kept(&self, i: usize) -> bool {
        i >= self.discarded && !self.transient.contains(&i)
    }

    /// The placement check's verdict so far ([`placement_verdict`]): None before its first
    /// round.
    pub fn placement_moved(&self) -> Option<bool> {
        if let Some((v, _)) = self.check {
            return Some(v);
        }
        let moved: Vec<f64> = self.moved.iter().map(|r| r.median).collect();
        placement_verdict(&self.base_medians(), &moved, self.step_ns())
    }

    /// The medians of every kept round, of every placement.
    pub fn kept_medians(&self) -> Vec<f64> {
        self.kept().iter().map(|r| r.median).collect()
    }

    /// The medians of the kept rounds of the first placement: what the adaptive stop, the
    /// trend and the placement check look at.
    pub fn base_medians(&self) -> Vec<f64> {
        self.kept()
            .iter()
            .filter(|r| r.placement == 0)
            .map(|r| r.median)
            .collect()
    }

    /// Each placement's mean kept round median, by placement index (one value when all rounds
    /// ran in one placement).
    pub fn placement_means(&self) -> Vec<f64> {
        let mut by: std::collections::BTreeMap<u32, (f64, usize)> = Default::default();
        for r in self.kept() {
            let e = by.entry(r.placement).or_default();
            e.0 += r.median;
            e.1 += 1;
        }
        by.into_values().map(|(s, n)| s / n as f64).collect()
    }

    /// Whether the variant still gets rounds (no stop reason yet).
    pub fn active(&self) -> bool {
        self.stop.is_none()
    }

    /// How far along it is, 0 to 1, for the progress bar: 1 once stopped, else the larger
    /// share of its time budget or of its maximum rounds (either ends it), below 0.95.
    pub fn progress(&self, s: &Settings) -> f64 {
        if !self.active() {
            return 1.0;
        }
        let budget = if s.budget_ns > 0.0 {
            self.spent_ns / s.budget_ns
        } else {
            0.0
        };
        let rounds = self.kept().len() as f64 / s.max_rounds.max(1) as f64;
        budget.max(rounds).clamp(0.0, 0.95)
    }

    /// After a round: leave out leading warm-up rounds (unless warm-up is off:
    /// `warmup_ms = 0` measures from the first batch on), then decide whether to stop.
    pub fn decide(&mut self, s: &Settings) {
        if s.warmup_ms > 0 {
            let all: Vec<f64> = self.rounds.iter().map(|r| r.median).collect();
            // Once left out, a round stays out: the kept rounds only ever shrink at the front.
            self.discarded = self.discarded.max(leading_warmup(&all));
        }
        let after: Vec<f64> = self.rounds[self.discarded.min(self.rounds.len())..]
            .iter()
            .map(|r| r.median)
            .collect();
        // Like a warm-up round, a transient once left out stays out (so a variant stopped at
        // its target has exactly the rounds it needed), up to a quarter of the rounds.
        let first = self.discarded;
        self.transient.retain(|&i| i >= first);
        self.transient_pct.retain(|&i, _| i >= first);
        for k in transients(&after) {
            if !self.transient.contains(&(k + first)) && self.transient.len() < after.len() / 4 {
                self.transient.push(k + first);
                self.transient_pct
                    .insert(k + first, above_median_pct(&after, k));
            }
        }
        self.transient.sort_unstable();
        let kept = self.base_medians();
        let enough = kept.len() >= s.min_rounds as usize;
        if enough {
            if let Some(ci) = inference::rounds_interval(&kept, self.step_ns()) {
                let trending = inference::trend(&kept).is_some_and(|t| t.flagged());
                if ci.half_width_pct <= s.ci_target_pct && !trending {
                    self.stop = Some(StopReason::Target);
                    return;
                }
                if ci.resolution_limited && !trending {
                    self.stop = Some(StopReason::Resolution);
                    return;
                }
            }
            if self.spent_ns >= s.budget_ns {
                self.stop = Some(StopReason::Budget);
                return;
            }
        }
        // The cap counts kept rounds: rounds left out as warm-up (at most half) are made up.
        if kept.len() >= s.max_rounds as usize {
            self.stop = Some(StopReason::MaxRounds);
        }
    }
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
