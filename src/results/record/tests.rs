//! The edge: a variant's typed record made into rows.
use super::*;
use crate::results::{cell, Limiter, LimiterSource, SCHEMA_VERSION};

fn record(outcome: Outcome) -> VariantRecord {
    VariantRecord {
        identity: Identity {
            run_id: "run".into(),
            scenario: "sc".into(),
            variant: "v".into(),
            dispatches: 1,
            ..Default::default()
        },
        declared: Work {
            bytes_read: Some(1000),
            bytes_written: Some(24),
            texels: Some(7),
            ..Default::default()
        },
        build: BuildFacts {
            workgroup: Some([64, 2, 1]),
            grid: "4x1x1".into(),
            workgroups: Some(4),
            expected_invocations: Some(512),
            spill_bytes_per_thread: Some(0),
            ..Default::default()
        },
        check_run: CheckRunFacts {
            invocations: Some(512),
            note: "subgroup size not measured: why".into(),
            occupancy: Some(OccupancyFacts {
                groups_per_unit: 2,
                waves_per_unit: 16,
                occupancy_pct: 25.0,
                limiter: "registers".into(),
            }),
            probe: ProbeOutcome {
                status: "invalid: too many".into(),
                flags: vec!["probe one".into(), "probe two".into()],
                ..Default::default()
            },
            ..Default::default()
        },
        check: CheckOutcome {
            check: Check::Pass,
            detail: "vs reference: ok".into(),
        },
        outcome,
        batches: Vec::new(),
        counter_batches: Vec::new(),
    }
}

#[test]
fn a_failed_variant_keeps_what_it_knew_and_says_why_in_every_mode() {
    let r = record(Outcome::Failed {
        status: RowStatus::CheckFailed,
        reason: "outputs differ".into(),
        modes: vec![Mode::Warm, Mode::Cold],
    });
    let rows = r.rows();
    assert_eq!(rows.len(), 2);
    for (row, mode) in rows.iter().zip([Mode::Warm, Mode::Cold]) {
        assert_eq!(row.mode, Some(mode));
        assert_eq!(row.status, RowStatus::CheckFailed);
        // The failure's reason replaces the check run's note.
        assert_eq!(row.reason, "outputs differ");
        assert_eq!(
            (row.workgroup_x, row.workgroup_y, row.workgroup_z),
            (Some(64), Some(2), Some(1))
        );
        assert_eq!(row.bytes, Some(1024));
        assert_eq!(row.texture_unit.as_deref(), Some("texture_point"));
        assert_eq!(
            (cell(&row.check).as_str(), row.check_detail.as_str()),
            ("pass", "vs reference: ok")
        );
        assert_eq!(row.occupancy_limiter, "registers");
        assert_eq!(row.flags, "probe one; probe two");
        assert_eq!((row.median_ns, row.limiter.clone()), (None, None));
        assert_eq!(row.schema_version, SCHEMA_VERSION);
    }
}

#[test]
fn a_timed_modes_parts_land_in_their_columns_and_notes_and_flags_keep_their_order() {
    let mode = ModeRecord {
        mode: Mode::Cold,
        timing: Timing {
            rounds: 5,
            median_ns: Some(1000.0),
            notes: vec!["a transient".into(), "a drift".into()],
            ..Default::default()
        },
        clock: ClockFacts {
            clock_mhz: Some(1980.0),
            ..Default::default()
        },
        cold_evict: "read".into(),
        counted: Counted {
            hw_source: "cupti-pm-sampling".into(),
            hw_sm_pct: Some(90.0),
            // Carried into the verdict's flags by `apply_counted`, never written twice.
            flags: vec!["not written from here".into()],
            ..Default::default()
        },
        verdict: Verdict {
            limiter: Some(Limiter::one("sm")),
            limiter_source: Some(LimiterSource::Counted),
            pcts: UnitPcts {
                dram_pct: Some(12.5),
                ..Default::default()
            },
            flags: vec!["declared".into(), "counted".into()],
            ..Default::default()
        },
    };
    let rows = record(Outcome::Timed(vec![mode])).rows();
    let r = &rows[0];
    assert_eq!((r.status, r.mode), (RowStatus::Ok, Some(Mode::Cold)));
    assert_eq!(
        r.reason,
        "subgroup size not measured: why; a transient; a drift"
    );
    assert_eq!(r.flags, "probe one; probe two; declared; counted");
    assert_eq!((r.rounds, r.median_ns), (Some(5), Some(1000.0)));
    assert_eq!((r.clock_mhz, r.cold_evict.as_str()), (Some(1980.0), "read"));
    assert_eq!(
        (r.hw_source.as_str(), r.hw_sm_pct),
        ("cupti-pm-sampling", Some(90.0))
    );
    assert_eq!((cell(&r.limiter).as_str(), r.dram_pct), ("sm", Some(12.5)));
    // Statistics a mode always has, even without kept rounds.
    assert_eq!(r.fresh, Some(crate::results::Fresh::None));
}

#[test]
fn the_timeline_makes_no_column_and_lists_each_repetition_and_reading_in_order() {
    let bare = record(Outcome::Timed(Vec::new()));
    let mut r = bare.clone();
    let batch = |kind, mode, round, starts: &[f64]| TimedBatch {
        kind,
        mode,
        round,
        host_span: (starts[0] - 10.0, starts[starts.len() - 1] + 100.0),
        clock_mhz: None,
        reps: starts
            .iter()
            .map(|&s| RepSpan {
                start_ns: s,
                gpu_ns: 5.0,
            })
            .collect(),
    };
    r.batches = vec![
        batch(BatchKind::Round, Mode::Warm, 0, &[100.0, 110.0]),
        batch(BatchKind::Placement, Mode::Cold, 3, &[200.0]),
    ];
    r.counter_batches = vec![CounterBatch {
        mode: Mode::Warm,
        source: "cupti-pm-sampling",
        window: (300.0, 400.0),
        names: vec!["a".into(), "b".into()],
        samples: vec![
            CounterSample {
                span: (300.0, 350.0),
                values: vec![1.0, 2.0],
            },
            CounterSample {
                span: (350.0, 400.0),
                values: vec![3.0, 4.0],
            },
        ],
    }];
    assert_eq!(r.rows(), bare.rows());
    let reps: Vec<(u32, Mode, &str, f64, f64)> = r
        .repetitions()
        .map(|(b, s)| (b.round, b.mode, b.kind.as_str(), s.start_ns, s.end_ns()))
        .collect();
    assert_eq!(
        reps,
        [
            (0, Mode::Warm, "round", 100.0, 105.0),
            (0, Mode::Warm, "round", 110.0, 115.0),
            (3, Mode::Cold, "placement", 200.0, 205.0),
        ]
    );
    let readings: Vec<(f64, &str, f64)> = r.counter_batches[0]
        .readings()
        .map(|x| (x.span.0, x.metric, x.value))
        .collect();
    assert_eq!(
        readings,
        [
            (300.0, "a", 1.0),
            (300.0, "b", 2.0),
            (350.0, "a", 3.0),
            (350.0, "b", 4.0)
        ]
    );
}
