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
    assert_eq!(fmt_time(812.0), "812.0 ns");
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
        }
        .into(),
        run_id: "".into(),
        repetition: rep,
        dispatch,
        gpu_ns,
        repetition_ns: span,
        round: round.map(|(round, kept)| RoundTag {
            round,
            round_position: 0,
            batch_repetition: rep % 3,
            kept,
            placement: false,
            at: 0,
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
    let key = (*run.samples[0].key).clone();
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
fn devices_match_by_model_and_driver_and_cards_by_uuid() {
    let dev = |name: &str, uuid: &str, version: &str, info: &str| DeviceId {
        name: name.into(),
        uuid: uuid.into(),
        driver_name: "NVIDIA".into(),
        driver_version: version.into(),
        driver_info: info.into(),
    };
    let a = dev("NVIDIA H200", "aa", "1", "580");
    assert!(a.same_as(&a.clone()));
    // Two H200s of one driver are one device model (issue 29), two cards.
    let b = dev("NVIDIA H200", "bb", "1", "580");
    assert!(a.same_as(&b) && !a.same_card(&b));
    assert!(a.same_card(&a.clone()));
    // No name on one side: the uuid decides.
    assert!(!a.same_as(&dev("", "bb", "1", "580")));
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

/// One run of two variants, `a` and `b`, six kept rounds each (a at 100 ns, b at `b_kept`,
/// ±0.1 % round to round) and one placement round (`a_moved`, `b_moved`), as samples.csv
/// and results.csv rows.
/// One compared pair (two variants of one run), for tests that set its fields themselves.
pub(super) fn pair_row() -> PairRow {
    let run = placement_run(83.0, 100.0, 97.0, "none");
    let pair = CompareOptions {
        pairs: vec![PairSpec::new("a", "b")],
        ..Default::default()
    };
    compare(&run, &run, &pair).rows[0].clone()
}

pub(super) fn placement_run(b_kept: f64, a_moved: f64, b_moved: f64, fresh: &str) -> RunData {
    let mut run = RunData::default();
    let mut rep = 0;
    for (variant, kept, moved) in [("a", 100.0, a_moved), ("b", b_kept, b_moved)] {
        let key = RowKey {
            scenario: "s".into(),
            variant: variant.into(),
            params: String::new(),
            mode: "warm".into(),
        };
        let mut rounds: Vec<(u32, bool, bool, f64)> = (0..6)
            .map(|r| {
                (
                    r,
                    true,
                    false,
                    kept * (1.0 + 0.001 * f64::from(r % 3) - 0.001),
                )
            })
            .collect();
        rounds.push((6, false, true, moved));
        for (round, is_kept, placement, t) in rounds {
            run.samples.push(SampleRecord {
                key: key.clone().into(),
                run_id: "r1".into(),
                repetition: rep,
                dispatch: 0,
                gpu_ns: t,
                repetition_ns: Some(t),
                round: Some(RoundTag {
                    round,
                    round_position: 0,
                    batch_repetition: 0,
                    kept: is_kept,
                    placement,
                    at: u32::from(placement),
                }),
            });
            rep += 1;
        }
        let fields: BTreeMap<String, String> = [
            ("schema_version", "2"),
            ("run_id", "r1"),
            ("scenario", "s"),
            ("variant", variant),
            ("status", "ok"),
            ("mode", "warm"),
            ("fresh", fresh),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        run.results.push(Record::from_cells(2, fields).unwrap());
    }
    run
}

#[test]
fn a_side_whose_time_moves_with_its_data_marks_the_pair() {
    let pair = CompareOptions {
        pairs: vec![PairSpec::new("a", "b")],
        ..Default::default()
    };
    // b is 17 % faster in the rounds and 3 % faster with the data moved, a does not move:
    // still improved there, so only b's own move is noted.
    let run = placement_run(83.0, 100.0, 97.0, "none");
    let c = compare(&run, &run, &pair);
    let p = &c.rows[0];
    assert_eq!(p.verdict, Verdict::Improved);
    assert!((p.ratio_moved.unwrap() - 0.97).abs() < 1e-9, "{p:?}");
    assert!(
        p.placement.contains("new `b` moved +16."),
        "{}",
        p.placement
    );
    assert!(!p.placement.contains("ratio"), "{}", p.placement);
    assert!(to_brief(&c, Shown::All, false).contains("improved [placement]"));
    assert!(c
        .warnings
        .iter()
        .any(|w| w.contains("1 pair(s) marked [placement]")));
    // With the data moved b is no faster: the verdict does not hold there, and says so.
    let run = placement_run(83.0, 100.0, 100.2, "none");
    let p = &compare(&run, &run, &pair).rows[0];
    assert!(
        p.placement
            .contains("with the data moved the ratio is 1.002 (no change)"),
        "{}",
        p.placement
    );
    // Nothing moved: no mark, and the ratio with the data moved is still reported.
    let run = placement_run(83.0, 100.0, 83.0, "none");
    let c = compare(&run, &run, &pair);
    assert_eq!(c.rows[0].placement, "");
    assert!((c.rows[0].ratio_moved.unwrap() - 0.83).abs() < 1e-9);
    assert!(!to_brief(&c, Shown::All, false).contains("[placement]"));
    let csv = to_brief_csv(&c, Shown::All);
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with("ratio_moved,placement,fresh_base,fresh_new"));
}

#[test]
fn runs_measured_with_different_fresh_designs_are_marked() {
    let base = placement_run(83.0, 100.0, 83.0, "none");
    let mut new = placement_run(83.0, 100.0, 83.0, "resources");
    for s in &mut new.samples {
        s.run_id = "r2".into();
    }
    for r in &mut new.results {
        r.set("run_id", "r2").unwrap();
    }
    let c = compare(&base, &new, &CompareOptions::default());
    assert_eq!(c.rows.len(), 2);
    assert!(c.rows.iter().all(|p| p.design_differs()));
    // Two runs: no ratio across their placement rounds (each moved its own way).
    assert!(c.rows.iter().all(|p| p.ratio_moved.is_none()));
    assert!(to_brief(&c, Shown::All, false).contains("no change [design]"));
    assert!(c.warnings.iter().any(|w| w.contains(
        "2 pair(s) marked [design]: the runs were measured differently (base `fresh = none`, new `fresh = resources`)"
    )));
}

/// One run of two variants `a` and `b` measured over placements: in placement `p` a takes
/// `a_at[p]` ns and b `a_at[p] × ratio_at[p]`, 3 rounds each (±0.1 % round to round).
fn placed_run(a_at: &[f64], ratio_at: &[f64]) -> RunData {
    let mut run = RunData::default();
    let mut rep = 0;
    for variant in ["a", "b"] {
        let key = RowKey {
            scenario: "s".into(),
            variant: variant.into(),
            params: String::new(),
            mode: "warm".into(),
        };
        let mut round = 0;
        for (p, (&a, &ratio)) in a_at.iter().zip(ratio_at).enumerate() {
            for k in 0..3 {
                let t = if variant == "a" { a } else { a * ratio };
                let t = t * (1.0 + 0.001 * f64::from(k) - 0.001);
                run.samples.push(SampleRecord {
                    key: key.clone().into(),
                    run_id: "r1".into(),
                    repetition: rep,
                    dispatch: 0,
                    gpu_ns: t,
                    repetition_ns: Some(t),
                    round: Some(RoundTag {
                        round,
                        round_position: 0,
                        batch_repetition: 0,
                        kept: true,
                        placement: false,
                        at: p as u32,
                    }),
                });
                rep += 1;
                round += 1;
            }
        }
        let fields: BTreeMap<String, String> = [
            ("schema_version", "2"),
            ("run_id", "r1"),
            ("scenario", "s"),
            ("variant", variant),
            ("status", "ok"),
            ("mode", "warm"),
            ("placements", "4"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        run.results.push(Record::from_cells(2, fields).unwrap());
    }
    run
}

#[test]
fn over_placements_a_ratio_that_holds_is_a_change_and_one_that_does_not_is_placement_dependent() {
    let pair = CompareOptions {
        pairs: vec![PairSpec::new("a", "b")],
        ..Default::default()
    };
    // a's time moves ±10 % with its data, b stays 10 % faster in every placement: paired
    // inside each placement, the change is real.
    let run = placed_run(&[100.0, 110.0, 92.0, 104.0], &[0.9, 0.9, 0.9, 0.9]);
    let c = compare(&run, &run, &pair);
    let p = &c.rows[0];
    assert_eq!(p.method, Some(Method::Placements), "{p:?}");
    assert_eq!(p.verdict, Verdict::Improved, "{p:?}");
    assert_eq!(p.n, Some(4));
    assert!(!has_regression(&c, true));
    // b is 5 % faster where the data first sat and not elsewhere: in the first placement
    // alone the rounds say improved; over placements, no clear change.
    let run = placed_run(&[100.0, 100.0, 100.0, 100.0], &[0.95, 1.03, 0.99, 1.04]);
    let c = compare(&run, &run, &pair);
    let p = &c.rows[0];
    assert_eq!(
        p.verdict,
        Verdict::PlacementDependent(Box::new(Verdict::Improved)),
        "{p:?}"
    );
    assert!(to_brief(&c, Shown::Changed, false)
        .contains("placement-dependent (improved in one placement)"));
    assert!(
        summary_line(&c).contains("1 placement-dependent"),
        "{}",
        summary_line(&c)
    );
    // The same pair regressing in one placement: --fail-on-regression fails only when told.
    let run = placed_run(&[100.0, 100.0, 100.0, 100.0], &[1.05, 0.97, 1.01, 0.96]);
    let c = compare(&run, &run, &pair);
    assert_eq!(
        c.rows[0].verdict,
        Verdict::PlacementDependent(Box::new(Verdict::Regressed))
    );
    assert!(!has_regression(&c, false));
    assert!(has_regression(&c, true));
}

#[test]
fn two_runs_in_one_placement_each_carry_the_placement_sd() {
    // b's run sat 2 % slower; with no placement SD known that is a regression, with each
    // side's placement SD of 1.5 % the interval widens past the noise band.
    let with_sd = |sd: &str| {
        let mut base = placement_run(83.0, 100.0, 83.0, "none");
        let mut new = placement_run(83.0, 100.0, 83.0, "none");
        for s in &mut new.samples {
            s.run_id = "r2".into();
            s.gpu_ns *= 1.02;
            s.repetition_ns = s.repetition_ns.map(|t| t * 1.02);
        }
        for (run, id) in [(&mut base, "r1"), (&mut new, "r2")] {
            for r in &mut run.results {
                r.set("run_id", id).unwrap();
                r.set("placement_sd_pct", sd).unwrap();
            }
        }
        compare(&base, &new, &CompareOptions::default())
    };
    let c = with_sd("");
    assert!(
        c.rows.iter().all(|p| p.verdict == Verdict::Regressed),
        "{:?}",
        c.rows
    );
    // Each run's one placement is memory of its own process: the 2 % is what moving the
    // data gives, so the verdict is no change (before, `placement-dependent`: a verdict an
    // A/A pair should not get), and the note says what one placement each alone reads.
    let c = with_sd("1.5");
    assert!(
        c.rows.iter().all(|p| p.verdict == Verdict::NoChange
            && p.placement
                .contains("one placement each, without the placement SD would read regressed")),
        "{:?}",
        c.rows
    );
    assert!(!has_regression(&c, true));
    assert!(to_brief(&c, Shown::All, false).contains("no change [placement]"));
}

#[test]
fn two_runs_over_placements_judge_over_them_not_by_their_first_placements() {
    // Two processes of the same code over four placements each: process 2's first placement
    // happens to be 4 % slower than process 1's, the others scatter around it. Within one
    // run the first placement is the same memory for both variants; across runs it is not,
    // so the pair is no change, with the first placements' reading in the note.
    let one = |id: &str, at: &[f64]| {
        let mut run = placed_run(at, &[1.0, 1.0, 1.0, 1.0]);
        run.samples.retain(|s| s.key.variant == "a");
        run.results.retain(|r| r.get("variant") == "a");
        for s in &mut run.samples {
            s.run_id = id.into();
        }
        for r in &mut run.results {
            r.set("run_id", id).unwrap();
        }
        run
    };
    let base = one("r1", &[100.0, 104.0, 99.0, 103.0]);
    let new = one("r2", &[104.0, 100.0, 102.0, 99.0]);
    let c = compare(&base, &new, &CompareOptions::default());
    let p = &c.rows[0];
    assert_eq!(p.method, Some(Method::Placements), "{p:?}");
    assert_eq!(p.verdict, Verdict::NoChange, "{p:?}");
    assert!(
        p.placement
            .contains("each run's first placement alone would read regressed"),
        "{p:?}"
    );
    assert!(!has_regression(&c, true));
}

#[test]
fn two_runs_at_different_clocks_carry_the_clock_difference() {
    // b's run sat 1.5 % slower. At the same clock that is a regression; with b's batches at a
    // 1.2 % lower SM clock (1956 against 1980 MHz: two of the H100's 13 MHz bins less one), a
    // clock-bound kernel would be that much slower from the clock alone, so the interval
    // reaches into the noise band: no change. Two variants of one run are never widened.
    let at = |clock_new: &str| {
        let mut base = placement_run(83.0, 100.0, 83.0, "none");
        let mut new = placement_run(83.0, 100.0, 83.0, "none");
        for s in &mut new.samples {
            s.run_id = "r2".into();
            s.gpu_ns *= 1.015;
            s.repetition_ns = s.repetition_ns.map(|t| t * 1.015);
        }
        for (run, id, clock) in [(&mut base, "r1", "1980"), (&mut new, "r2", clock_new)] {
            for r in &mut run.results {
                r.set("run_id", id).unwrap();
                r.set("clock_mhz", clock).unwrap();
            }
        }
        compare(&base, &new, &CompareOptions::default())
    };
    let c = at("1980");
    assert!(
        c.rows.iter().all(|p| p.verdict == Verdict::Regressed),
        "{:?}",
        c.rows
    );
    let c = at("1956");
    assert!(
        c.rows.iter().all(|p| p.verdict == Verdict::NoChange),
        "{:?}",
        c.rows
    );
    // The ratio itself stays; only its interval covers the clock's share.
    assert!(c.rows.iter().all(|p| {
        let (lo, hi) = p.ratio_ci.unwrap();
        (p.ratio().unwrap() - 1.015).abs() < 0.002 && lo < 1.005 && hi > 1.015
    }));
    let c = at("");
    assert!(
        c.rows.iter().all(|p| p.verdict == Verdict::Regressed),
        "no clock on one side: as before, {:?}",
        c.rows
    );
}

/// Issue 29: one ratio direction everywhere (new ÷ base in the terminal, compare.csv's
/// `time_ns` line and `--format csv`), a headline with the geometric mean, changes first,
/// and not-comparable pairs folded by reason.
#[test]
fn one_ratio_everywhere_headline_first_and_not_comparable_folded() {
    let pair = CompareOptions {
        pairs: vec![PairSpec::new("a", "b")],
        ..Default::default()
    };
    // b is 10 % faster in every placement: its ratio is about 0.9.
    let run = placed_run(&[100.0, 110.0, 92.0, 104.0], &[0.9, 0.9, 0.9, 0.9]);
    let mut c = compare(&run, &run, &pair);
    let r = c.rows[0].ratio().unwrap();
    assert!((r - 0.9).abs() < 0.01, "{r}");
    // compare.csv's time_ns line has the verdict's ratio, not after/before of the times.
    let csv = to_csv(&c);
    let time = csv.lines().find(|l| l.contains(",time_ns,")).unwrap();
    let cells: Vec<&str> = time.split(',').collect();
    assert_eq!(cells[8].parse::<f64>().unwrap(), r, "{time}");
    // --format csv has compare.csv's columns.
    assert_eq!(
        to_brief_csv(&c, Shown::All).lines().next(),
        csv.lines().next()
    );
    let text = to_brief(&c, Shown::All, false);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("1 pair: 1 improved"), "{text}");
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("geometric mean of 1 time ratio new ÷ base: 0.9"),
        "{text}"
    );
    assert!(text.contains("1.11× faster"), "{text}");
    // Two not-comparable pairs failing the same way fold into one line.
    let mut nc = c.rows[0].clone();
    nc.verdict = Verdict::NotComparable(
        "base `a` is unsupported: no fp64; new `b` is unsupported: no fp64".into(),
    );
    c.rows.push(nc.clone());
    nc.variant_base = "c".into();
    nc.variant_new = "d".into();
    nc.verdict = Verdict::NotComparable(
        "base `c` is unsupported: no fp64; new `d` is unsupported: no fp64".into(),
    );
    c.rows.push(nc);
    let text = to_brief(&c, Shown::All, false);
    assert!(
        text.contains("not comparable: 2 pairs (1 reason; compare.csv has each)"),
        "{text}"
    );
    assert!(
        text.contains("2 × both sides are unsupported: no fp64: s/a→b; s/c→d"),
        "{text}"
    );
    // -q keeps the headline and the change, drops the folded lines.
    let quiet = to_brief(&c, Shown::Changed, false);
    assert!(quiet.starts_with("3 pairs: 1 improved"), "{quiet}");
    assert!(!quiet.contains("not comparable:"), "{quiet}");
    // Colour on: the verdict is painted, and stripping the escapes gives the plain text.
    let colored = to_brief(&c, Shown::All, true);
    assert!(colored.contains("\x1b[1;32mimproved\x1b[0m"), "{colored}");
    assert_eq!(crate::output::ansi::strip(&colored), text);
}

/// Two cards of one model and driver: each run also carries its card's shift (CARD_SD), which
/// no calibration on one card measures; on one card a 1.5 % shift is a regression, across two
/// cards it is within what cards differ by (three H200s: 2.55 % at the 99th percentile).
#[test]
fn two_runs_on_two_cards_carry_the_card_level_sd() {
    let on = |uuid_new: &str| {
        let mut base = placement_run(83.0, 100.0, 83.0, "none");
        let mut new = placement_run(83.0, 100.0, 83.0, "none");
        for s in &mut new.samples {
            s.run_id = "r2".into();
            s.gpu_ns *= 1.015;
            s.repetition_ns = s.repetition_ns.map(|t| t * 1.015);
        }
        for (run, id, uuid) in [(&mut base, "r1", "u1"), (&mut new, "r2", uuid_new)] {
            for r in &mut run.results {
                r.set("run_id", id).unwrap();
                r.set("device_name", "NVIDIA H200").unwrap();
                r.set("device_uuid", uuid).unwrap();
            }
        }
        compare(&base, &new, &CompareOptions::default())
    };
    let c = on("u1");
    assert!(
        c.rows.iter().all(|p| p.verdict == Verdict::Regressed),
        "{:?}",
        c.rows
    );
    assert!(!c.process.iter().any(|n| n.contains("card-level")));
    let c = on("u2");
    assert!(
        c.rows.iter().all(|p| p.verdict == Verdict::NoChange),
        "{:?}",
        c.rows
    );
    assert!(
        c.process
            .iter()
            .any(|n| n.contains("card-level SD of 1.0 %")),
        "{:?}",
        c.process
    );
    // The ratio stays; its interval holds what two cards differ by.
    assert!(c.rows.iter().all(|p| {
        let (lo, hi) = p.ratio_ci.unwrap();
        (p.ratio().unwrap() - 1.015).abs() < 0.002 && lo < 0.99 && hi > 1.04
    }));
}
