use super::*;

#[test]
fn verdict_rule_needs_the_whole_ci_outside_the_noise_band() {
    assert_eq!(verdict_for_ci((0.90, 0.985), 1.0), Verdict::Improved);
    assert_eq!(verdict_for_ci((0.90, 0.995), 1.0), Verdict::NoChange);
    assert_eq!(verdict_for_ci((0.95, 1.05), 1.0), Verdict::NoChange);
    assert_eq!(verdict_for_ci((1.005, 1.2), 1.0), Verdict::NoChange);
    assert_eq!(verdict_for_ci((1.011, 1.2), 1.0), Verdict::Regressed);
    assert_eq!(verdict_for_ci((0.5, 0.6), 50.0), Verdict::NoChange);
}

#[test]
fn number_formats() {
    assert_eq!(sig(89018.0), "89018");
    assert_eq!(sig(1.104315981037543), "1.104");
    assert_eq!(sig(0.015028), "0.01503");
    assert_eq!(fmt_time(89018.0), "89.02 µs");
    assert_eq!(fmt_time(1264480.0), "1.264 ms");
    assert_eq!(fmt_time(812.0), "812 ns");
    assert_eq!(sig(8.0), "8");
    assert_eq!(csv_num(Some(89018.0)), "89018");
    assert_eq!(csv_num(Some(0.5)), "0.5");
    assert_eq!(csv_num(None), "");
}

fn sample(
    rep: u32,
    dispatch: u32,
    gpu_ns: f64,
    span: Option<f64>,
    round: Option<(u32, bool)>,
) -> SampleRecord {
    SampleRecord {
        key: RowKey {
            scenario: "s".into(),
            variant: "v".into(),
            params: String::new(),
            mode: "warm".into(),
        },
        run_id: String::new(),
        repetition: rep,
        dispatch,
        gpu_ns,
        repetition_ns: span,
        round: round.map(|(round, kept)| RoundTag {
            round,
            round_position: 0,
            batch_repetition: rep % 3,
            kept,
        }),
    }
}

#[test]
fn round_medians_take_one_time_per_repetition_from_kept_rounds() {
    let mut run = RunData::default();
    // Round 0 is a warm-up (kept = 0); rounds 1 and 2 have 3 repetitions of 2 passes.
    for (rep, round, kept, span) in [
        (0, 0, false, 500.0),
        (1, 0, false, 500.0),
        (2, 0, false, 500.0),
        (3, 2, true, 110.0),
        (4, 2, true, 130.0),
        (5, 2, true, 120.0),
        (6, 1, true, 100.0),
        (7, 1, true, 90.0),
        (8, 1, true, 95.0),
    ] {
        for d in 0..2 {
            run.samples.push(sample(
                rep,
                d,
                span / 2.0 - 1.0,
                Some(span),
                Some((round, kept)),
            ));
        }
    }
    let key = run.samples[0].key.clone();
    assert_eq!(run.round_medians(&key), vec![(1, 95.0), (2, 120.0)]);
    assert_eq!(run.repetition_times(&key).len(), 6);
    // Without `repetition_ns` a repetition is the sum of its passes.
    for s in &mut run.samples {
        s.repetition_ns = None;
    }
    assert_eq!(run.round_medians(&key), vec![(1, 93.0), (2, 118.0)]);
    // Rounds are all or nothing: one row without them and the key has none.
    run.samples.push(sample(9, 0, 1.0, None, None));
    assert!(run.round_medians(&key).is_empty());
}

#[test]
fn devices_match_by_uuid_else_name_and_by_driver() {
    let dev = |name: &str, uuid: &str, version: &str, info: &str| DeviceId {
        name: name.into(),
        uuid: uuid.into(),
        driver_name: "NVIDIA".into(),
        driver_version: version.into(),
        driver_info: info.into(),
    };
    let a = dev("NVIDIA H200", "aa", "1", "580");
    assert!(a.same_as(&a.clone()));
    // Two H200s are two devices.
    assert!(!a.same_as(&dev("NVIDIA H200", "bb", "1", "580")));
    // No uuid on one side: the name decides.
    assert!(a.same_as(&dev("NVIDIA H200", "", "1", "580")));
    assert!(!a.same_as(&dev("NVIDIA H100", "", "1", "580")));
    // Another driver.
    assert!(!a.same_as(&dev("NVIDIA H200", "aa", "2", "580")));
    assert!(!a.same_as(&dev("NVIDIA H200", "aa", "1", "590")));
    // Files too old to say: not a difference.
    assert!(a.same_as(&dev("NVIDIA H200", "aa", "", "")));
}

#[test]
fn fnv_is_stable() {
    assert_eq!(fnv1a(&[]), 0xcbf2_9ce4_8422_2325);
    assert_ne!(fnv1a(&["a", "b"]), fnv1a(&["ab"]));
}
