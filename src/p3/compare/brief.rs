//! `compare`'s stdout: a headline (the verdicts counted, the geometric mean of the time ratios
//! with its CI), then one line per pair with the changes first and the pairs that are not
//! comparable folded into one line per reason (the default table); or one CSV row / JSON
//! object per pair with stable columns and keys. The detailed per-pair blocks are
//! [`to_table`] (`-v`); the P3 table of each pair is [`to_p3`] (`--p3`).
use super::*;
use crate::output::ansi::{self, paint};
use crate::results::format::ratio_words;

/// Which pairs to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Every pair.
    All,
    /// Only pairs that improved or regressed (`compare -q`).
    Changed,
}

impl Shown {
    fn keeps(self, p: &PairRow) -> bool {
        match self {
            Shown::All => true,
            Shown::Changed => matches!(
                p.verdict,
                Verdict::Improved
                    | Verdict::Regressed
                    | Verdict::PlacementDependent(_)
                    | Verdict::Unstable(_)
            ),
        }
    }
}

/// The geometric mean of the ratios, its 95 % CI (None where a pair has none), and the pairs
/// it covers.
pub type Geomean = (f64, Option<(f64, f64)>, usize);

/// The geometric mean of the comparable pairs' time ratios, as Google Benchmark's compare.py
/// OVERALL_GEOMEAN gives, with a 95 % interval from the pairs' own intervals: each pair's CI
/// read as a normal interval on the log scale (standard error `ln(high / low) / (2 × 1.96)`).
/// It says whether the set of kernels compared moved as a whole, with the measurement's
/// uncertainty (not the spread between kernels, which would call two clear 1.3× gains "no
/// change" at n = 2).
///
/// Pairs of one run (`--pair`) are independent measurements: the mean's standard error is
/// `√Σse² / n`. Pairs of two runs share each process's effect (its clock, where its data
/// sat): their errors move together, and averaging does not shrink a shared shift (issue 41:
/// two processes of unchanged code, four pairs all "no change" with intervals about
/// [0.47, 1.01], were headlined 0.72 [0.60, 0.87], "1.38× faster"). Their standard error is
/// then the mean of the pairs' (`Σse / n`, fully correlated), which keeps the overall interval
/// around 1 whenever every pair's interval holds 1: the headline can never claim a change that
/// no pair supports.
pub fn geomean(c: &Comparison) -> Option<Geomean> {
    let comparable: Vec<&PairRow> = c
        .rows
        .iter()
        .filter(|p| !matches!(p.verdict, Verdict::NotComparable(_)))
        .collect();
    let shared = comparable.iter().any(|p| !p.same_run);
    let pairs: Vec<(f64, Option<(f64, f64)>)> = comparable
        .iter()
        .filter_map(|p| p.ratio().map(|r| (r, p.ratio_ci)))
        .filter(|(r, _)| r.is_finite() && *r > 0.0)
        .collect();
    let n = pairs.len();
    if n == 0 {
        return None;
    }
    let mean = pairs.iter().map(|(r, _)| r.ln()).sum::<f64>() / n as f64;
    let z = 1.959_963_984_540_054;
    let se: Option<Vec<f64>> = pairs
        .iter()
        .map(|(_, ci)| match ci {
            Some((lo, hi)) if *lo > 0.0 && hi >= lo => Some((hi / lo).ln() / (2.0 * z)),
            _ => None,
        })
        .collect();
    let ci = se.map(|se| {
        let sem = if shared {
            se.iter().sum::<f64>() / n as f64
        } else {
            se.iter().map(|s| s * s).sum::<f64>().sqrt() / n as f64
        };
        let h = z * sem;
        ((mean - h).exp(), (mean + h).exp())
    });
    Some((mean.exp(), ci, n))
}

/// The headline: the verdicts counted, then the geometric mean of the ratios.
pub fn headline(c: &Comparison, color: bool) -> String {
    let mut out = paint(color, ansi::BOLD, &summary_line(c));
    out.push('\n');
    if let Some((g, ci, n)) = geomean(c) {
        let ci_text = ci
            .map(|(lo, hi)| format!(" [{lo:.4}, {hi:.4}]"))
            .unwrap_or_default();
        // The headline never claims what no pair does: a set whose pairs are all unstable
        // (drifted) or placement-dependent has no change to sum up (issue 41).
        let claimed = c
            .rows
            .iter()
            .any(|p| matches!(p.verdict, Verdict::Improved | Verdict::Regressed));
        let unstable = c
            .rows
            .iter()
            .filter(|p| matches!(p.verdict, Verdict::Unstable(_)))
            .count();
        let words = match ci {
            Some((lo, hi)) if lo <= 1.0 && hi >= 1.0 => "no change overall".to_string(),
            _ if !claimed && unstable > 0 => format!(
                "unstable overall: {unstable} pair{} drifted or missed their CI target, and none is improved or regressed",
                if unstable == 1 { "" } else { "s" }
            ),
            _ if !claimed => "no change claimed: no pair is improved or regressed".to_string(),
            _ => ratio_words(g),
        };
        out.push_str(&format!(
            "geometric mean of {n} time ratio{} new ÷ base: {g:.4}{ci_text} ({words}{})\n",
            if n == 1 { "" } else { "s" },
            match (ci.is_some(), c.rows.iter().any(|p| !p.same_run)) {
                (true, true) => {
                    "; 95 % CI from the pairs' intervals, which share each run's process effect"
                }
                (true, false) => "; 95 % CI from the pairs' intervals",
                _ => "",
            }
        ));
    }
    // Which process SD two runs' pairs carry, and where it came from (issue 41).
    for line in &c.process {
        out.push_str(&format!("process level: {line}\n"));
    }
    out
}

/// The verdict cell, coloured: improved green, regressed red, placement-dependent yellow.
fn verdict_cell(p: &PairRow, color: bool) -> String {
    let text = p.verdict_text();
    let style = match &p.verdict {
        Verdict::Improved => ansi::GREEN_BOLD,
        Verdict::Regressed => ansi::RED_BOLD,
        Verdict::PlacementDependent(_) | Verdict::Unstable(_) => ansi::YELLOW,
        Verdict::NoChange => "",
        Verdict::NotComparable(_) => ansi::DIM,
    };
    if style.is_empty() {
        text
    } else {
        paint(color, style, &text)
    }
}

/// A pair's reason with its variants' names taken out, so that pairs failing the same way
/// fold into one line: "base `wg64-sg16` is unsupported: X" → "base is unsupported: X".
fn fold_key(p: &PairRow, why: &str) -> String {
    let mut k = why.to_string();
    for v in [&p.variant_base, &p.variant_new] {
        k = k.replace(&format!(" `{v}`"), "");
    }
    // "base is X; new is X" (an A/A pair of a variant the device lacks): said once.
    if let Some((b, n)) = k.split_once("; ") {
        if let (Some(b), Some(n)) = (b.strip_prefix("base is "), n.strip_prefix("new is ")) {
            if b == n {
                return format!("both sides are {b}");
            }
        }
    }
    k
}

/// Sort rank: changes first (regressed, improved, placement-dependent), then no change.
fn rank(v: &Verdict) -> u8 {
    match v {
        Verdict::Regressed => 0,
        Verdict::Improved => 1,
        Verdict::PlacementDependent(_) => 2,
        Verdict::Unstable(_) => 2,
        Verdict::NoChange => 3,
        Verdict::NotComparable(_) => 4,
    }
}

/// Counts of the verdicts: "3 pairs: 1 improved, 0 regressed, 2 no change, 0 not comparable
/// (noise threshold 1 %)".
pub fn summary_line(c: &Comparison) -> String {
    let count = |f: &dyn Fn(&PairRow) -> bool| c.rows.iter().filter(|r| f(r)).count();
    let improved = count(&|p| p.verdict == Verdict::Improved && !p.cross_device);
    let regressed = count(&|p| p.verdict == Verdict::Regressed && !p.cross_device);
    // Across devices: faster or slower, not improved or regressed (issue 29).
    let faster = count(&|p| p.verdict == Verdict::Improved && p.cross_device);
    let slower = count(&|p| p.verdict == Verdict::Regressed && p.cross_device);
    let not_cmp = count(&|p| matches!(p.verdict, Verdict::NotComparable(_)));
    let placed = count(&|p| matches!(p.verdict, Verdict::PlacementDependent(_)));
    let unstable = count(&|p| matches!(p.verdict, Verdict::Unstable(_)));
    let mut placed_text = if placed > 0 {
        format!(", {placed} placement-dependent")
    } else {
        String::new()
    };
    if unstable > 0 {
        placed_text.push_str(&format!(
            ", {unstable} unstable (a side's rounds drifted or missed their CI target)"
        ));
    }
    let cross_text = if faster + slower > 0 {
        format!(", {faster} faster and {slower} slower across devices")
    } else {
        String::new()
    };
    format!(
        "{} pair{}: {improved} improved, {regressed} regressed{cross_text}{placed_text}, {} no change, {not_cmp} not comparable (noise threshold {} %)",
        c.rows.len(),
        if c.rows.len() == 1 { "" } else { "s" },
        c.rows.len() - improved - regressed - faster - slower - not_cmp - placed - unstable,
        c.noise_pct
    )
}

/// The headline (counts, geometric mean), then one aligned line per comparable pair, the
/// changes first (regressed, improved, placement-dependent) and no change after, each in the
/// run's order: pair, base and new time, ratio new ÷ base with its words, its 95 % CI, p and
/// the verdict; then the pairs that are not comparable, one line per reason with how many
/// and which. `Shown::Changed` (`-q`) keeps the headline and the changed pairs. Warnings are
/// not included (the command line prints them on stderr). `color`: ANSI styles (a terminal).
pub fn to_brief(c: &Comparison, shown: Shown, color: bool) -> String {
    let mut out = headline(c, color);
    let mut order: Vec<&PairRow> = c
        .rows
        .iter()
        .filter(|p| !matches!(p.verdict, Verdict::NotComparable(_)))
        .filter(|p| shown.keeps(p))
        .collect();
    order.sort_by_key(|p| rank(&p.verdict));
    let mut rows = vec![[
        "pair",
        "base",
        "new",
        "new ÷ base",
        "",
        "95% CI",
        "p",
        "verdict",
    ]
    .map(String::from)
    .to_vec()];
    for p in &order {
        rows.push(vec![
            pair_label(p),
            fmt_opt(p.median_base_ns, fmt_time),
            fmt_opt(p.median_new_ns, fmt_time),
            fmt_ratio(p.ratio()),
            change_words(p),
            fmt_ci(p.ratio_ci),
            fmt_p(p.p_value),
            // Coloured after alignment (below): the escape codes have no width.
            p.verdict_text(),
        ]);
    }
    let right = [false, true, true, true, false, true, true, false];
    if order.is_empty() {
        if shown == Shown::All {
            out.push_str("no pair is comparable\n");
        }
    } else {
        let table = aligned(&rows, &right, "");
        let mut lines = table.lines();
        let header = lines.next().unwrap_or_default();
        let rule = lines.next().unwrap_or_default();
        out.push_str(&format!("\n{}\n", paint(color, ansi::DIM, header)));
        out.push_str(&format!("{}\n", paint(color, ansi::DIM, rule)));
        for (line, p) in lines.zip(&order) {
            // The verdict is the last cell: colour it in place.
            let text = p.verdict_text();
            match line.strip_suffix(text.as_str()) {
                Some(head) => {
                    out.push_str(head);
                    out.push_str(&verdict_cell(p, color));
                }
                None => out.push_str(line),
            }
            out.push('\n');
        }
    }
    // Pairs whose sides were not steady but read no change: said in words, not only marked.
    let unsteady: Vec<&&PairRow> = order
        .iter()
        .filter(|p| !p.unsteady.is_empty() && !matches!(p.verdict, Verdict::Unstable(_)))
        .collect();
    if let Some(first) = unsteady.first() {
        out.push_str(&format!(
            "[unsteady] {} pair{}: a side's rounds drifted or stopped at max_rounds short of their CI target, and the interval carries the drift (e.g. {}: {}; compare.md has each)\n",
            unsteady.len(),
            if unsteady.len() == 1 { "" } else { "s" },
            pair_label(first),
            first.unsteady
        ));
    }
    if shown == Shown::All {
        out.push_str(&not_comparable_lines(c, color));
    }
    out
}

/// The pairs that are not comparable, one line per reason (names taken out): how many, the
/// reason (cut at 160 characters; compare.csv has it whole) and the first pairs.
fn not_comparable_lines(c: &Comparison, color: bool) -> String {
    let mut groups: Vec<(String, Vec<&PairRow>)> = Vec::new();
    for p in &c.rows {
        if let Verdict::NotComparable(why) = &p.verdict {
            let k = fold_key(p, why);
            match groups.iter_mut().find(|(g, _)| *g == k) {
                Some((_, v)) => v.push(p),
                None => groups.push((k, vec![p])),
            }
        }
    }
    if groups.is_empty() {
        return String::new();
    }
    let n: usize = groups.iter().map(|(_, v)| v.len()).sum();
    let mut out = format!(
        "\n{}\n",
        paint(
            color,
            ansi::DIM,
            &format!(
                "not comparable: {n} pair{} ({} reason{}; compare.csv has each)",
                if n == 1 { "" } else { "s" },
                groups.len(),
                if groups.len() == 1 { "" } else { "s" }
            )
        )
    );
    for (why, pairs) in &groups {
        let short: String = if why.chars().count() > 160 {
            format!("{}…", why.chars().take(159).collect::<String>())
        } else {
            why.clone()
        };
        // Which variants, by name (their params cases and modes are in compare.csv).
        let mut names: Vec<String> = Vec::new();
        for p in pairs {
            let v = if p.variant_base == p.variant_new {
                format!("{}/{}", p.scenario, p.variant_base)
            } else {
                format!("{}/{}→{}", p.scenario, p.variant_base, p.variant_new)
            };
            if !names.contains(&v) {
                names.push(v);
            }
        }
        let more = if names.len() > 3 {
            format!(" and {} more", names.len() - 3)
        } else {
            String::new()
        };
        names.truncate(3);
        out.push_str(&format!(
            "  {:>4} × {short}: {}{more}\n",
            pairs.len(),
            names.join("; ")
        ));
    }
    out
}

/// The P3 table of each comparable pair (`compare --p3`), Nsight's before/after view: per unit
/// the two %-of-peak, the limiter of each side, and the time ratio with its verdict.
pub fn to_p3(c: &Comparison, shown: Shown) -> String {
    let mut out = String::new();
    let mut any = false;
    for p in c.rows.iter().filter(|p| shown.keeps(p)) {
        if matches!(p.verdict, Verdict::NotComparable(_)) {
            continue;
        }
        any = true;
        let _ = writeln!(out, "{}{}", pair_label(p), markers(p));
        let _ = writeln!(
            out,
            "  time {} → {}: new ÷ base {} {} ({}), {}",
            fmt_opt(p.median_base_ns, fmt_time),
            fmt_opt(p.median_new_ns, fmt_time),
            fmt_ratio(p.ratio()),
            fmt_ci(p.ratio_ci),
            p.ratio().map(ratio_words).unwrap_or_else(|| "-".into()),
            p.verdict_text()
        );
        let mut units: Vec<String> = Vec::new();
        for (u, _) in p.units_base.iter().chain(&p.units_new) {
            if !units.contains(u) {
                units.push(u.clone());
            }
        }
        let get = |side: &[(String, f64)], u: &str| {
            side.iter()
                .find(|(n, _)| n == u)
                .map(|(_, v)| crate::results::units::pct_cell_text(*v))
                .unwrap_or_else(|| "-".into())
        };
        let mut rows = vec![["unit", "base", "new"].map(String::from).to_vec()];
        for u in &units {
            rows.push(vec![u.clone(), get(&p.units_base, u), get(&p.units_new, u)]);
        }
        rows.push(vec![
            "limiter".into(),
            non_empty(&p.limiter_base),
            non_empty(&p.limiter_new),
        ]);
        let no_limiter = |l: &str| l.is_empty() || l.starts_with("none");
        if units.is_empty() && no_limiter(&p.limiter_base) && no_limiter(&p.limiter_new) {
            out.push_str("  no %-of-peak on either side (the runs had no peaks: `p3lab peak`)\n\n");
            continue;
        }
        out.push_str(&aligned(&rows, &[false, true, true], "  "));
        out.push('\n');
    }
    if !any {
        out.push_str("no comparable pair\n");
    }
    out
}

fn non_empty(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.to_string()
    }
}

/// Columns of [`to_brief_csv`] and keys of each pair in [`to_json`], in order.
pub const BRIEF_COLUMNS: &[&str] = &[
    "scenario",
    "variant_base",
    "variant_new",
    "params",
    "mode",
    "median_base_ns",
    "median_new_ns",
    "ratio",
    "ci_low",
    "ci_high",
    "p_value",
    "verdict",
    "reason",
    "method",
    "n",
    "n_base",
    "n_new",
    "cross_device",
    "limiter_base",
    "limiter_new",
    "ratio_moved",
    "placement",
    "fresh_base",
    "fresh_new",
];

/// One pair's cells, as strings for CSV ("" for a missing value) or JSON values.
fn cells(p: &PairRow) -> Vec<serde_json::Value> {
    use serde_json::Value;
    let num = |x: Option<f64>| match x {
        Some(v) if v.is_finite() => Value::from(v),
        _ => Value::Null,
    };
    let count = |x: Option<usize>| x.map_or(Value::Null, Value::from);
    vec![
        Value::from(p.scenario.as_str()),
        Value::from(p.variant_base.as_str()),
        Value::from(p.variant_new.as_str()),
        Value::from(p.params.as_str()),
        Value::from(p.mode.as_str()),
        num(p.median_base_ns),
        num(p.median_new_ns),
        num(p.ratio()),
        num(p.ratio_ci.map(|c| c.0)),
        num(p.ratio_ci.map(|c| c.1)),
        num(p.p_value),
        Value::from(p.verdict_word()),
        Value::from(p.verdict.reason()),
        p.method.map_or(Value::Null, |m| Value::from(m.as_str())),
        count(p.n),
        Value::from(p.n_base),
        Value::from(p.n_new),
        Value::from(p.cross_device),
        Value::from(p.limiter_base.as_str()),
        Value::from(p.limiter_new.as_str()),
        num(p.ratio_moved),
        Value::from(p.placement.as_str()),
        Value::from(p.fresh_base.as_str()),
        Value::from(p.fresh_new.as_str()),
    ]
}

/// compare.csv's lines ([`CSV_COLUMNS`], one per pair and metric) for the pairs shown
/// (`Shown::Changed` keeps the changed pairs; the header always): `--format csv` and
/// compare.csv have one schema (issue 29).
pub fn to_brief_csv(c: &Comparison, shown: Shown) -> String {
    super::render::csv_of(c.rows.iter().filter(|p| shown.keeps(p)))
}

/// One JSON object: `base`, `new` (the paths compared), `noise_pct`, `counts` (`pairs`,
/// `improved`, `regressed`, `no_change`, `not_comparable`, over every pair), `geomean`
/// (`ratio`, `ci_low`, `ci_high`, `pairs`: [`geomean`]), `pairs` (each with
/// the keys of [`BRIEF_COLUMNS`] and `metrics`: `name`, `unit`, `before`, `after`, `ratio`),
/// and `warnings`. Missing numbers are null.
pub fn to_json(c: &Comparison, shown: Shown, base: &Path, new: &Path) -> String {
    use serde_json::{json, Map, Value};
    let num = |x: Option<f64>| x.filter(|v| v.is_finite()).map_or(Value::Null, Value::from);
    let pairs: Vec<Value> = c
        .rows
        .iter()
        .filter(|p| shown.keeps(p))
        .map(|p| {
            let mut m: Map<String, Value> = BRIEF_COLUMNS
                .iter()
                .map(|k| k.to_string())
                .zip(cells(p))
                .collect();
            let metrics: Vec<Value> = p
                .metrics
                .iter()
                .map(|x| {
                    json!({
                        "name": x.name,
                        "unit": x.unit,
                        "before": num(x.before),
                        "after": num(x.after),
                        "ratio": num(x.ratio()),
                    })
                })
                .collect();
            m.insert("metrics".into(), Value::from(metrics));
            Value::Object(m)
        })
        .collect();
    let count = |f: &dyn Fn(&Verdict) -> bool| c.rows.iter().filter(|r| f(&r.verdict)).count();
    let v = json!({
        "base": base.display().to_string(),
        "new": new.display().to_string(),
        "noise_pct": c.noise_pct,
        "counts": {
            "pairs": c.rows.len(),
            "improved": count(&|v| *v == Verdict::Improved),
            "regressed": count(&|v| *v == Verdict::Regressed),
            "no_change": count(&|v| *v == Verdict::NoChange),
            "not_comparable": count(&|v| matches!(v, Verdict::NotComparable(_))),
            "placement_dependent": count(&|v| matches!(v, Verdict::PlacementDependent(_))),
            "unstable": count(&|v| matches!(v, Verdict::Unstable(_))),
        },
        "geomean": geomean(c).map(|(g, ci, n)| json!({
            "ratio": g,
            "ci_low": ci.map(|c| c.0),
            "ci_high": ci.map(|c| c.1),
            "pairs": n,
        })),
        "pairs": pairs,
        "process_level": c.process,
        "warnings": c.warnings,
    });
    serde_json::to_string_pretty(&v).expect("JSON of plain values") + "\n"
}
