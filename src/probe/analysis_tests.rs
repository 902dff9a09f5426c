//! Tests of src/probe/analysis.rs on synthetic probe records.
use super::super::{Records, Subgroup};
use super::*;

fn sg(start: u64, end: u64, sm: Option<u32>) -> Option<Subgroup> {
    Some(Subgroup {
        start,
        end,
        sm,
        warp: sm.map(|_| 0),
        subgroup_size: 32,
    })
}

/// Groups of one subgroup each, without SM ids.
fn one_each(iv: &[(u64, u64)]) -> Records {
    Records {
        subgroups: iv.iter().map(|&(s, e)| sg(s, e, None)).collect(),
        slots: 1,
        unfinished: 0,
    }
}

/// Groups of `slots` slots: each inner list is one group's subgroups (SM, start, end).
fn grouped(slots: usize, groups: &[&[(u32, u64, u64)]]) -> Records {
    let mut subgroups = Vec::new();
    for g in groups {
        assert!(g.len() <= slots);
        for &(sm, s, e) in *g {
            subgroups.push(sg(s, e, Some(sm)));
        }
        subgroups.extend(std::iter::repeat_n(None, slots - g.len()));
    }
    Records {
        subgroups,
        slots,
        unfinished: 0,
    }
}

fn hopper(groups: u32, waves: u32) -> Expected {
    Expected {
        groups: Some(groups),
        waves: Some(waves),
        max_waves: Some(64),
        units: Some(132),
        unit_name: "SM".into(),
        wave_name: "warps".into(),
    }
}

#[test]
fn concurrency_half_open_and_weighted() {
    // Back to back: never two at once.
    assert_eq!(concurrency(&[(0, 10), (10, 20)]), (1, 1.0));
    // Two fully overlapped for half the window.
    let (max, mean) = concurrency(&[(0, 10), (0, 10), (10, 20)]);
    assert_eq!(max, 2);
    assert!((mean - 1.5).abs() < 1e-12);
    // All at one instant.
    assert_eq!(concurrency(&[(5, 5), (5, 5)]).1, 2.0);
}

#[test]
fn brief_hand_overs_do_not_count() {
    // Two groups at a time, each 100 ticks; every hand-over overlaps by 3 ticks.
    let iv: Vec<(u64, u64)> = (0..10u64)
        .flat_map(|k| [(k * 97, k * 97 + 100), (k * 97 + 40, k * 97 + 140)])
        .collect();
    assert_eq!(concurrency(&iv).0, 3);
    assert_eq!(sustained(&iv, 10), 2);
    assert_eq!(sustained(&iv, 0), 3);
    // A level held exactly tau long counts; a single interval is level 1.
    assert_eq!(sustained(&[(0, 10), (0, 10)], 10), 2);
    assert_eq!(sustained(&[(0, 10)], 11), 0);
    assert_eq!(sustained(&[(0, 10)], 5), 1);
    // Empty intervals last no time.
    assert_eq!(sustained(&[(5, 5), (5, 5), (0, 10)], 3), 1);
    assert_eq!(
        sustained(&[(0, 10), (2, 3)], 0),
        concurrency(&[(0, 10), (2, 3)]).0
    );
}

#[test]
fn two_groups_meeting_only_at_a_hand_over_count_one() {
    // SM 0 runs group A (two warps, 0..100) then group B (two warps, 97..200): the groups
    // overlap for 3 ticks while A's last warp records its end and B's first warp starts.
    let r = grouped(
        2,
        &[&[(0, 0, 100), (0, 0, 60)], &[(0, 97, 200), (0, 99, 200)]],
    );
    let a = analyze(&r).unwrap();
    // Groups count while all their warps are resident: A over 0..60, B over 99..200.
    assert_eq!((a.per_unit_peak, a.per_unit_max), (1, 1));
    // Warps: A's second warp left at 60, so at most three warps at once (97..100), and
    // only for 3 ticks; two warps are held for long.
    assert_eq!((a.waves_per_unit_peak, a.waves_per_unit_max), (3, 2));
    assert_eq!(
        a.per_unit,
        vec![UnitCount {
            unit: Some(0),
            groups: 1,
            waves: 2
        }]
    );
    assert!(a.has_unit_ids);
    assert_eq!(judge(&a, &hopper(1, 2)).status, "ok");
}

#[test]
fn warps_leaving_early_do_not_inflate_the_counts() {
    // An SM that holds 4 warps, groups of 2 warps. A's second warp leaves at 50, its
    // first at 100; C runs 0..100; B starts at 100, once A is gone. Timed by its first
    // warp alone and ending after a late store, A would have overlapped B; per-subgroup
    // records never count more than the 4 warps and 2 groups that were resident.
    let r = grouped(
        2,
        &[
            &[(7, 0, 100), (7, 0, 50)],
            &[(7, 0, 100), (7, 0, 100)],
            &[(7, 100, 200), (7, 100, 200)],
        ],
    );
    let a = analyze(&r).unwrap();
    assert_eq!((a.per_unit_max, a.per_unit_peak), (2, 2));
    assert_eq!((a.waves_per_unit_max, a.waves_per_unit_peak), (4, 4));
    assert_eq!(a.subgroups_recorded, 6);
    let v = judge(&a, &hopper(2, 4));
    assert_eq!(
        v,
        Verdict {
            status: "ok".into(),
            flags: vec![]
        }
    );
    // Time-weighted means over SM 7's busy window 0..200: 550 warp-ticks (50 + 5 × 100)
    // and 250 group-ticks (A is fully resident for 0..50 only, C and B for 100 each).
    assert!((a.waves_per_unit_mean - 550.0 / 200.0).abs() < 1e-12);
    assert!((a.per_unit_mean - 250.0 / 200.0).abs() < 1e-12);
}

#[test]
fn achieved_above_theoretical_is_invalid_and_flagged() {
    // SM 3 holds 9 groups of 8 warps for the whole time (72 warps), SM 4 holds 8 (64).
    let nine: Vec<Vec<(u32, u64, u64)>> = (0..9).map(|_| vec![(3, 0, 100); 8]).collect();
    let eight: Vec<Vec<(u32, u64, u64)>> = (0..8).map(|_| vec![(4, 0, 100); 8]).collect();
    let all: Vec<&[(u32, u64, u64)]> = nine.iter().chain(&eight).map(|g| g.as_slice()).collect();
    let a = analyze(&grouped(8, &all)).unwrap();
    assert_eq!((a.per_unit_max, a.waves_per_unit_max), (9, 72));
    assert_eq!(a.units, 2);
    let v = judge(&a, &hopper(8, 64));
    assert_eq!(
        v.status,
        "invalid: achieved 72 warps > theoretical 64 on SM 3; achieved 9 groups > theoretical 8 on SM 3"
    );
    assert_eq!(
        v.flags,
        vec![
            "achieved_occupancy>theoretical: 72 warps > 64 on SM 3",
            "achieved_occupancy>theoretical: 9 groups > 8 on SM 3"
        ]
    );
    // Over the theoretical but within the hardware's 64 warps: the theoretical is named.
    let v = judge(&a, &hopper(4, 32));
    assert!(
        v.status.contains("72 warps > theoretical 32 on SM 3"),
        "{}",
        v.status
    );
    assert!(!v.status.contains("hardware maximum"), "{}", v.status);
    // Without a theoretical for the shader, the hardware maximum still holds.
    let hw = Expected {
        groups: None,
        waves: None,
        ..hopper(0, 0)
    };
    assert_eq!(
        judge(&a, &hw).status,
        "invalid: achieved 72 warps > hardware maximum 64 on SM 3"
    );
}

#[test]
fn without_unit_ids_the_device_is_one_unit() {
    // 3 groups of one subgroup at once, no SM ids.
    let a = analyze(&one_each(&[(0, 10), (0, 10), (0, 10)])).unwrap();
    assert!(!a.has_unit_ids);
    assert_eq!((a.units, a.per_unit_max, a.waves_per_unit_max), (1, 3, 3));
    // 2 per SM on a 1-SM device: invalid; on 132 SMs: fine.
    let mut e = hopper(2, 2);
    e.units = Some(1);
    assert_eq!(
        judge(&a, &e).status,
        "invalid: achieved 3 warps > theoretical 2 on the device (1 SMs); achieved 3 groups > theoretical 2 on the device (1 SMs)"
    );
    assert_eq!(judge(&a, &hopper(2, 2)).status, "ok");
    // No SM count: nothing to compare with, and the status says why.
    e.units = None;
    assert_eq!(
        judge(&a, &e),
        Verdict {
            status: "unchecked: no SM ids in the records and the SM count is unknown".into(),
            flags: vec![]
        }
    );
    assert!(judge(&a, &Expected::default())
        .status
        .starts_with("unchecked: no theoretical occupancy"));
}

#[test]
fn per_sm_concurrency() {
    // SM 0: two at once all the time; SM 1: one, then one.
    let r = grouped(
        1,
        &[&[(0, 0, 10)], &[(0, 0, 10)], &[(1, 0, 5)], &[(1, 5, 10)]],
    );
    let a = analyze(&r).unwrap();
    assert_eq!(a.units, 2);
    assert_eq!(a.per_unit_max, 2);
    assert!((a.per_unit_mean - 1.5).abs() < 1e-12);
    // Without SM ids the same groups are one device: three at once at most.
    let a = analyze(&one_each(&[(0, 10), (0, 10), (0, 5), (5, 10)])).unwrap();
    assert_eq!((a.units, a.per_unit_max), (1, 3));
    assert!((a.per_unit_mean - 3.0).abs() < 1e-12);
}

#[test]
fn ranks_correlation_tail_span() {
    // Row-major launch: rank = index, correlation 1.
    let iv: Vec<(u64, u64)> = (0..20u64).map(|i| (100 + i, 110 + i)).collect();
    let a = analyze(&one_each(&iv)).unwrap();
    assert_eq!(a.ranks, (0..20).map(Some).collect::<Vec<_>>());
    assert!((a.rank_corr - 1.0).abs() < 1e-12);
    assert_eq!(a.span, 29);
    // 95th percentile of 20 ends is the 19th (128); the last is 129.
    assert!((a.tail_pct - 100.0 / 29.0).abs() < 1e-9);
    // Reversed launch: correlation -1.
    let iv: Vec<(u64, u64)> = (0..20u64).map(|i| (100 - i, 110 - i)).collect();
    let a = analyze(&one_each(&iv)).unwrap();
    assert!((a.rank_corr + 1.0).abs() < 1e-12);
    assert_eq!(a.ranks[19], Some(0));
    // A straggler makes a long tail.
    let mut iv: Vec<(u64, u64)> = (0..99u64).map(|i| (i, i + 10)).collect();
    iv.push((0, 1000));
    let a = analyze(&one_each(&iv)).unwrap();
    assert!(a.tail_pct > 85.0, "{}", a.tail_pct);
    // Unrecorded groups have no rank and do not count.
    let r = Records {
        subgroups: vec![None, sg(5, 6, None), None, sg(1, 2, None)],
        slots: 1,
        unfinished: 1,
    };
    let a = analyze(&r).unwrap();
    assert_eq!(a.ranks, vec![None, Some(1), None, Some(0)]);
    assert_eq!((a.groups, a.recorded, a.subgroups_unfinished), (4, 2, 1));
    assert!(analyze(&Records {
        subgroups: vec![None, None],
        slots: 1,
        unfinished: 0
    })
    .is_none());
}
