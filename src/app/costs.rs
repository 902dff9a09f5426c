//! Where a run's wall time went (issue 42, item 5): run.json's `cost_table`, from the phases
//! `app::run` times and what the runner recorded inside them, and its lines in the log (`-v`).
use crate::output::run_json::{CostPart, RunJson};

/// The phases `app::run` timed around the runner, ms.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Phases {
    /// From the start to the preflight: the device opened, the scenarios loaded, the peaks.
    pub open_ms: f64,
    /// The preflight: every variant compiled and checked before anything runs.
    pub preflight_ms: f64,
    /// The runner: every case.
    pub cases_ms: f64,
}

fn part(part: &str, ms: f64, of: Vec<CostPart>) -> CostPart {
    CostPart {
        part: part.into(),
        ms,
        of,
    }
}

/// Where the counter batches' wall time went (run.json `hw_counters`), their rest last.
fn counter_parts(meta: &RunJson, counters: f64) -> Vec<CostPart> {
    let Some(h) = meta.hw_counters.as_ref().filter(|h| h.wall_ms > 0.0) else {
        return Vec::new();
    };
    let known =
        h.start_stop_ms + h.batches_ms + h.decode_ms + h.evaluate_ms + h.image_ms + h.keeper_ms;
    vec![
        part("CUPTI start and stop", h.start_stop_ms, Vec::new()),
        part(
            &format!(
                "the batches, on the GPU and waited for ({} counted again after the keeper)",
                h.redone_batches
            ),
            h.batches_ms,
            Vec::new(),
        ),
        part("decoding the samples", h.decode_ms, Vec::new()),
        part("reading and evaluating samples", h.evaluate_ms, Vec::new()),
        part(
            "counter data images made and emptied",
            h.image_ms,
            Vec::new(),
        ),
        part("clock keepers submitted", h.keeper_ms, Vec::new()),
        part(
            "the rest (jobs set up, values combined, cold mode's subtraction)",
            (counters - known).max(0.0),
            Vec::new(),
        ),
    ]
}

/// The table for `meta` (its cases, rounds, costs and counters filled in) of a run whose
/// wall time was `wall_ms`: the top-level rows sum to it, the last one being what no phase
/// measured.
pub(super) fn table(meta: &RunJson, p: Phases, wall_ms: f64) -> Vec<CostPart> {
    let sum = |f: &dyn Fn(&crate::output::run_json::CaseTimeline) -> f64| -> f64 {
        meta.cases.iter().map(f).sum()
    };
    let (wait, setup, check, rounds) = (
        sum(&|c| c.inputs_wait_ms),
        sum(&|c| c.setup_ms),
        sum(&|c| c.check_phase_ms),
        sum(&|c| c.rounds_ms),
    );
    let timed: f64 = meta
        .costs
        .iter()
        .map(|c| c.timed_submit_ns as f64)
        .sum::<f64>()
        / 1e6;
    let gpu: f64 = meta.costs.iter().map(|c| c.gpu_timed_ns).sum::<f64>() / 1e6;
    let warmups = meta.warmup_wall_ns as f64 / 1e6;
    let counters = meta.hw_counters.as_ref().map_or(0.0, |h| h.wall_ms);
    // The placement check's batches are timed submissions too (`timed_submit_ns`); moving
    // the data between placements is in the rest.
    let in_rounds = timed + warmups + counters;
    let rounds_part = part(
        "rounds",
        rounds,
        vec![
            part(
                &format!(
                    "timed submissions, the placement checks' included (GPU busy {:.1} s)",
                    gpu / 1e3
                ),
                timed,
                Vec::new(),
            ),
            part("warm-ups", warmups, Vec::new()),
            part("hardware-counter batches", counters, counter_parts(meta, counters)),
            part(
                "the rest of the rounds (clock keeper, scheduling, data moved between placements, pipelines made anew)",
                (rounds - in_rounds).max(0.0),
                Vec::new(),
            ),
        ],
    );
    let cases = vec![
        part("waiting for inputs and CPU references", wait, Vec::new()),
        part("case set-up (resources, uploads)", setup, Vec::new()),
        part(
            "check phase (pipelines, check runs, outputs compared)",
            check,
            Vec::new(),
        ),
        rounds_part,
        part(
            "case teardown and between cases",
            (p.cases_ms - (wait + setup + check + rounds)).max(0.0),
            Vec::new(),
        ),
    ];
    let measured = p.open_ms + p.preflight_ms + p.cases_ms;
    vec![
        part("device, scenarios and peaks", p.open_ms, Vec::new()),
        part(
            "preflight (every variant compiled and checked)",
            p.preflight_ms,
            Vec::new(),
        ),
        part("cases", p.cases_ms, cases),
        part(
            "the rest (run folder, run.json, rows read back for --resume)",
            (wall_ms - measured).max(0.0),
            Vec::new(),
        ),
    ]
}

/// The table as log lines (`-v`), seconds and share of the wall.
pub(super) fn log(table: &[CostPart], wall_ms: f64) {
    tracing::debug!("where the wall time went ({:.1} s):", wall_ms / 1e3);
    fn lines(depth: usize, parts: &[CostPart], wall_ms: f64) {
        for c in parts {
            tracing::debug!(
                "{:indent$}{:>8.2} s {:>5.1} %  {}",
                "",
                c.ms / 1e3,
                100.0 * c.ms / wall_ms.max(1e-9),
                c.part,
                indent = 2 * depth
            );
            lines(depth + 1, &c.of, wall_ms);
        }
    }
    lines(1, table, wall_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_level_rows_sum_to_the_wall_and_nothing_reads_negative() {
        let meta = RunJson {
            cases: vec![crate::output::run_json::CaseTimeline {
                inputs_wait_ms: 1.0,
                setup_ms: 2.0,
                check_phase_ms: 3.0,
                rounds_ms: 50.0,
                total_ms: 57.0,
                ..Default::default()
            }],
            warmup_wall_ns: 10_000_000,
            ..Default::default()
        };
        let p = Phases {
            open_ms: 5.0,
            preflight_ms: 7.0,
            cases_ms: 60.0,
        };
        let t = table(&meta, p, 80.0);
        let top: f64 = t.iter().map(|c| c.ms).sum();
        assert!((top - 80.0).abs() < 1e-9);
        assert_eq!(t[3].ms, 8.0, "what no phase measured");
        let cases = &t[2].of;
        assert_eq!(cases[4].ms, 4.0, "teardown: 60 - (1 + 2 + 3 + 50)");
        let rounds = &cases[3].of;
        assert_eq!(rounds[1].ms, 10.0);
        assert_eq!(rounds[3].ms, 40.0);
        assert!(t.iter().flat_map(|c| &c.of).all(|c| c.ms >= 0.0));
        assert!(rounds[2].of.is_empty(), "no counters, no parts");
    }

    #[test]
    fn the_counter_batches_parts_sum_to_their_wall() {
        let meta = RunJson {
            cases: vec![crate::output::run_json::CaseTimeline {
                rounds_ms: 50.0,
                total_ms: 50.0,
                ..Default::default()
            }],
            hw_counters: Some(crate::output::run_json::HwStatus {
                wall_ms: 30.0,
                start_stop_ms: 1.0,
                batches_ms: 10.0,
                decode_ms: 6.0,
                evaluate_ms: 2.0,
                image_ms: 4.0,
                keeper_ms: 0.5,
                redone_batches: 3,
                ..Default::default()
            }),
            ..Default::default()
        };
        let p = Phases {
            open_ms: 0.0,
            preflight_ms: 0.0,
            cases_ms: 50.0,
        };
        let t = table(&meta, p, 50.0);
        let counters = &t[2].of[3].of[2];
        assert_eq!(counters.ms, 30.0);
        let sum: f64 = counters.of.iter().map(|c| c.ms).sum();
        assert!((sum - 30.0).abs() < 1e-9, "{sum}");
        assert_eq!(counters.of.last().unwrap().ms, 6.5, "the rest");
        assert!(counters.of[1].part.contains("3 counted again"));
    }
}
