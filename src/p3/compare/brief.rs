//! `compare`'s stdout: one line per pair (the default table), or one CSV row / JSON object per
//! pair with stable columns and keys. The detailed per-pair blocks are [`to_table`] (`-v`).
use super::*;
use crate::results::csv_safe;

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
                Verdict::Improved | Verdict::Regressed | Verdict::PlacementDependent(_)
            ),
        }
    }
}

/// The time ratio new/base the verdict judges (the CI's centre for rounds).
pub fn ratio(p: &PairRow) -> Option<f64> {
    p.change_pct.map(|c| 1.0 + c / 100.0)
}

/// `improved`, `regressed`, `no change`, `not comparable: WHY`, with its marks
/// (` [cross-device]`, ` [placement]`, ` [design]`).
fn verdict_text(p: &PairRow) -> String {
    let v = match &p.verdict {
        Verdict::NotComparable(why) => format!("not comparable: {why}"),
        Verdict::PlacementDependent(v) => {
            format!("placement-dependent ({} in one placement)", v.as_str())
        }
        v => v.as_str().to_string(),
    };
    v + &markers(p)
}

/// Counts of the verdicts: "3 pairs: 1 improved, 0 regressed, 2 no change, 0 not comparable
/// (noise threshold 1 %)".
pub fn summary_line(c: &Comparison) -> String {
    let count = |f: &dyn Fn(&Verdict) -> bool| c.rows.iter().filter(|r| f(&r.verdict)).count();
    let improved = count(&|v| *v == Verdict::Improved);
    let regressed = count(&|v| *v == Verdict::Regressed);
    let not_cmp = count(&|v| matches!(v, Verdict::NotComparable(_)));
    let placed = count(&|v| matches!(v, Verdict::PlacementDependent(_)));
    let placed_text = if placed > 0 {
        format!(", {placed} placement-dependent")
    } else {
        String::new()
    };
    format!(
        "{} pair{}: {improved} improved, {regressed} regressed{placed_text}, {} no change, {not_cmp} not comparable (noise threshold {} %)",
        c.rows.len(),
        if c.rows.len() == 1 { "" } else { "s" },
        c.rows.len() - improved - regressed - not_cmp - placed,
        c.noise_pct
    )
}

/// One aligned line per pair: pair, base and new time, ratio new/base, its 95 % CI, p and
/// verdict; a header line first and the summary line last. `Shown::Changed` prints only the
/// changed pairs' lines, without header or summary (nothing when none changed). Warnings are
/// not included (the command line prints them on stderr).
pub fn to_brief(c: &Comparison, shown: Shown) -> String {
    let mut rows = vec![["pair", "base", "new", "ratio", "95% CI", "p", "verdict"]
        .map(String::from)
        .to_vec()];
    for p in c.rows.iter().filter(|p| shown.keeps(p)) {
        rows.push(vec![
            pair_label(p),
            fmt_opt(p.median_base_ns, fmt_time),
            fmt_opt(p.median_new_ns, fmt_time),
            fmt_ratio(ratio(p)),
            fmt_ci(p.ratio_ci),
            fmt_p(p.p_value),
            verdict_text(p),
        ]);
    }
    let right = [false, true, true, true, true, true, false];
    match shown {
        Shown::All => {
            // The rule under the header spans the header, not the longest verdict's reason.
            let table = aligned(&rows, &right, "");
            let mut lines = table.lines();
            let header = lines.next().unwrap_or_default();
            let mut out = format!("{header}\n{}\n", "-".repeat(header.chars().count()));
            for l in lines.skip(1) {
                out.push_str(l);
                out.push('\n');
            }
            out.push_str(&summary_line(c));
            out.push('\n');
            out
        }
        Shown::Changed if rows.len() == 1 => String::new(),
        Shown::Changed => {
            // Aligned as a table, without the header and its rule.
            let table = aligned(&rows, &right, "");
            table.lines().skip(2).map(|l| format!("{l}\n")).collect()
        }
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
        num(ratio(p)),
        num(p.ratio_ci.map(|c| c.0)),
        num(p.ratio_ci.map(|c| c.1)),
        num(p.p_value),
        Value::from(p.verdict.as_str()),
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

/// One CSV row per pair with [`BRIEF_COLUMNS`] (the header always; `Shown::Changed` keeps the
/// changed pairs). Numbers at full precision, empty cells for missing values, `cross_device`
/// 0 or 1.
pub fn to_brief_csv(c: &Comparison, shown: Shown) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    w.write_record(BRIEF_COLUMNS).expect("in-memory CSV");
    for p in c.rows.iter().filter(|p| shown.keeps(p)) {
        let row: Vec<String> = cells(p)
            .into_iter()
            .map(|v| match v {
                serde_json::Value::Null => String::new(),
                serde_json::Value::Bool(b) => if b { "1" } else { "0" }.to_string(),
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            })
            .collect();
        csv_safe::write_record(&mut w, row.iter().map(String::as_str)).expect("in-memory CSV");
    }
    String::from_utf8(w.into_inner().expect("in-memory CSV")).expect("CSV of UTF-8 strings")
}

/// One JSON object: `base`, `new` (the paths compared), `noise_pct`, `counts` (`pairs`,
/// `improved`, `regressed`, `no_change`, `not_comparable`, over every pair), `pairs` (each with
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
        },
        "pairs": pairs,
        "warnings": c.warnings,
    });
    serde_json::to_string_pretty(&v).expect("JSON of plain values") + "\n"
}
