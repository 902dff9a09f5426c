//! Sweeps: a param, define, workgroup or subgroup size that takes at least three numeric
//! values among rows alike in every other dimension becomes a line chart of time against it.
//! Every other combination of dimensions is a line of its own; charts are split by params case
//! and mode (and, past [`MAX_SERIES`] lines, by the dimension with the fewest values), and rows
//! that cannot be drawn are listed with the reason.
use super::*;
use crate::p3::charts::{self, LineChart, Point, Series};
use crate::results::RowStatus;

/// Most lines one chart holds; beyond it the chart splits by another dimension.
const MAX_SERIES: usize = 10;

const MODE: &str = "\u{0}mode";
const SUBGROUP: &str = "\u{0}subgroup";
const WORKGROUP: &str = "\u{0}workgroup";
/// The variant name: a dimension only where no other tells rows apart.
const VARIANT: &str = "\u{0}variant";

/// A dimension's name for the reader.
fn shown(dim: &str) -> &str {
    dim.trim_start_matches('\u{0}')
}

/// `8x8` for an 8×8×1 workgroup, `64` for 64×1×1; None when the row has no workgroup columns.
fn workgroup(r: &Record) -> Option<String> {
    let mut xyz: Vec<&str> = ["workgroup_x", "workgroup_y", "workgroup_z"]
        .iter()
        .map(|c| r.get(c))
        .collect();
    if xyz[0].is_empty() {
        return None;
    }
    while xyz.len() > 1 && matches!(*xyz.last().expect("non-empty"), "1" | "") {
        xyz.pop();
    }
    Some(xyz.join("x"))
}

/// Every dimension of a row: defines, params (which win a name clash), workgroup size,
/// requested subgroup size and mode.
fn dims(r: &Record) -> BTreeMap<String, String> {
    let mut m: BTreeMap<String, String> = BTreeMap::new();
    for col in ["defines", "params"] {
        m.extend(entries(r.get(col)));
    }
    if let Some(wg) = workgroup(r) {
        m.insert(WORKGROUP.into(), wg);
    }
    let sg = r.get("subgroup_size_requested");
    if !sg.is_empty() {
        m.insert(SUBGROUP.into(), sg.to_string());
    }
    m.insert(MODE.into(), r.mode().to_string());
    m.insert(VARIANT.into(), r.get("variant").to_string());
    m
}

/// `a ×4, b`: the variants of `rows`, each with how many of its rows (params cases, modes)
/// are meant.
fn count_variants(rows: &[&Record]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for r in rows {
        match counts.iter_mut().find(|(v, _)| *v == r.get("variant")) {
            Some((_, n)) => *n += 1,
            None => counts.push((r.get("variant"), 1)),
        }
    }
    counts
        .iter()
        .map(|(v, n)| {
            if *n > 1 {
                format!("{v} ×{n}")
            } else {
                v.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

type Dims = BTreeMap<String, String>;
/// Rows a sweep leaves out, by reason.
type Dropped<'a> = Vec<(String, Vec<&'a Record>)>;
/// A line: its values of the other dimensions, and its (x, row) points sorted by x.
type Group<'a> = (Vec<Option<String>>, Vec<(f64, &'a Record)>);

/// The sweep charts of one scenario (time, and registers per thread where known) and the
/// notes on rows they leave out.
pub(super) fn charts(run: &RunData, scenario: &str, rows: &[&Record]) -> (Vec<Chart>, Vec<String>) {
    let ok: Vec<(&Record, Dims)> = rows
        .iter()
        .filter(|r| r.status() == RowStatus::Ok && r.num("median_ns").is_some())
        .map(|r| (*r, dims(r)))
        .collect();
    // Params first (their names are what users set on the command line), then defines.
    let mut keys: Vec<String> = Vec::new();
    let mut params: BTreeSet<String> = BTreeSet::new();
    for col in ["params", "defines"] {
        for (r, _) in &ok {
            for (k, _) in entries(r.get(col)) {
                if col == "params" {
                    params.insert(k.clone());
                }
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
    }
    keys.extend([WORKGROUP, SUBGROUP, MODE].map(String::from));
    // Two dimensions are one when they vary and agree on every row of `rows` (a define
    // `WG = "{wg}"` copying a param; the workgroup size a define sets).
    let alias_in = |rows: &[&(&Record, Dims)], a: &str, b: &str| {
        rows.iter().all(|(_, d)| d.get(a) == d.get(b))
            && rows
                .iter()
                .map(|(_, d)| d.get(a))
                .collect::<BTreeSet<_>>()
                .len()
                > 1
    };
    let all: Vec<&(&Record, Dims)> = ok.iter().collect();
    let is_alias = |a: &str, b: &str| alias_in(&all, a, b);
    let numeric = |k: &str| -> Option<usize> {
        let mut set = BTreeSet::new();
        for (_, d) in &ok {
            if let Some(v) = d.get(k) {
                set.insert(v.parse::<f64>().ok().filter(|x| x.is_finite())?.to_bits());
            }
        }
        Some(set.len())
    };

    let mut out = Vec::new();
    let mut notes = Vec::new();
    let mut taken: Vec<&String> = Vec::new();
    for k in &keys {
        if k == MODE || taken.iter().any(|t| is_alias(t, k)) || numeric(k).unwrap_or(0) < 3 {
            continue;
        }
        // The other dimensions, each once: copies of the swept key or of an earlier dimension
        // (a define `WG = "{wg}"` copying a param) add nothing.
        // Judged on the rows the sweep covers: among the `wg{WG}` variants the workgroup size
        // is WG, even if other variants of the scenario have a workgroup size and no WG.
        let with_k: Vec<&(&Record, Dims)> = ok.iter().filter(|(_, d)| d.contains_key(k)).collect();
        let mut others: Vec<&str> = Vec::new();
        for j in &keys {
            let copy = |o: &str| alias_in(&with_k, o, j);
            if j != k && !copy(k) && !others.iter().any(|o| copy(o)) {
                others.push(j);
            }
        }
        let Some((mut groups, mut dropped)) = lines(&ok, k, &others) else {
            continue;
        };
        // Rows no dimension tells apart (two kernels with the same defines, swept over a
        // param): their variant names do, when that leaves nothing out.
        let same = |d: &Dropped| d.iter().any(|(why, _)| why.starts_with("the same"));
        if same(&dropped) {
            let mut with_variant = others.clone();
            with_variant.push(VARIANT);
            if let Some((g, d)) = lines(&ok, k, &with_variant).filter(|(_, d)| !same(d)) {
                (groups, dropped, others) = (g, d, with_variant);
            }
        }
        taken.push(k);
        for (why, rows) in dropped {
            notes.push(format!(
                "{} sweep, not drawn ({why}): {}",
                shown(k),
                count_variants(&rows)
            ));
        }
        let facet_dims = facet_dims(&groups, &others, |d| params.contains(d) || d == MODE);
        out.extend(sweep_charts(
            run,
            scenario,
            k,
            &others,
            &groups,
            &facet_dims,
        ));
    }
    (out, notes)
}

/// Groups the rows that have `k` into lines (rows alike in every one of `others`); None when no
/// line has three points. Also returns the rows left out, by reason.
fn lines<'a>(
    ok: &[(&'a Record, Dims)],
    k: &str,
    others: &[&str],
) -> Option<(Vec<Group<'a>>, Dropped<'a>)> {
    let mut groups: Vec<Group<'a>> = Vec::new();
    let mut dropped: Dropped<'a> = Vec::new();
    let mut drop = |why: String, r: &'a Record| match dropped.iter_mut().find(|(w, _)| *w == why) {
        Some((_, v)) => v.push(r),
        None => dropped.push((why, vec![r])),
    };
    for (r, d) in ok.iter().filter(|(_, d)| d.contains_key(k)) {
        let id: Vec<Option<String>> = others.iter().map(|j| d.get(*j).cloned()).collect();
        let x: f64 = d[k].parse().unwrap_or(f64::NAN);
        match groups.iter_mut().find(|(g, _)| *g == id) {
            Some((_, pts)) => match pts.iter().find(|(px, _)| *px == x) {
                Some((_, first)) => drop(
                    format!(
                        "the same {} and every other dimension as {}",
                        shown(k),
                        first.get("variant")
                    ),
                    r,
                ),
                None => pts.push((x, *r)),
            },
            None => groups.push((id, vec![(x, *r)])),
        }
    }
    if !groups.iter().any(|(_, pts)| pts.len() >= 3) {
        return None;
    }
    for (_, pts) in groups.iter().filter(|(_, pts)| pts.len() < 2) {
        let why = format!(
            "single points: no other row alike in every other dimension has another {}",
            shown(k)
        );
        drop(why, pts[0].1);
    }
    groups.retain(|(_, pts)| pts.len() >= 2);
    for (_, pts) in &mut groups {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    // Lines in the natural order of their dimensions' values: the same line gets the same
    // colour in every chart of the sweep, whatever order the rows finished in.
    groups.sort_by(|a, b| {
        a.0.iter()
            .zip(&b.0)
            .map(|(x, y)| natural_cmp(x.as_deref().unwrap_or(""), y.as_deref().unwrap_or("")))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Some((groups, dropped))
}

/// How many values dimension `i` takes over `groups`.
fn distinct_at<'g, 'a: 'g>(groups: impl IntoIterator<Item = &'g Group<'a>>, i: usize) -> usize {
    groups
        .into_iter()
        .map(|(id, _)| &id[i])
        .collect::<BTreeSet<_>>()
        .len()
}

/// Indices into `others` that split the lines into charts: params and mode, then, while a
/// chart would hold more than [`MAX_SERIES`] lines, the dimension with the fewest values.
fn facet_dims(groups: &[Group], others: &[&str], splits: impl Fn(&str) -> bool) -> Vec<usize> {
    let mut facet: Vec<usize> = (0..others.len()).filter(|&i| splits(others[i])).collect();
    let distinct = |i: usize| distinct_at(groups, i);
    loop {
        let mut sizes: BTreeMap<Vec<&Option<String>>, usize> = BTreeMap::new();
        for (id, _) in groups {
            *sizes
                .entry(facet.iter().map(|&i| &id[i]).collect())
                .or_default() += 1;
        }
        if sizes.values().all(|&n| n <= MAX_SERIES) {
            return facet;
        }
        let next = (0..others.len())
            .filter(|i| !facet.contains(i) && distinct(*i) > 1)
            .min_by_key(|&i| (distinct(i), i));
        match next {
            Some(i) => {
                facet.push(i);
                facet.sort_unstable();
            }
            None => return facet,
        }
    }
}

/// `k=v, k=v` of the dimensions `dims` of a line.
fn describe(id: &[Option<String>], others: &[&str], dims: &[usize]) -> String {
    dims.iter()
        .filter_map(|&i| id[i].as_ref().map(|v| format!("{}={v}", shown(others[i]))))
        .collect::<Vec<_>>()
        .join(", ")
}

fn sweep_charts(
    run: &RunData,
    scenario: &str,
    k: &str,
    others: &[&str],
    groups: &[Group],
    facet_dims: &[usize],
) -> Vec<Chart> {
    // Charts in order of first appearance of their facet values.
    let mut facets: Vec<(Vec<&Option<String>>, Vec<&Group>)> = Vec::new();
    for g in groups {
        let key: Vec<&Option<String>> = facet_dims.iter().map(|&i| &g.0[i]).collect();
        match facets.iter_mut().find(|(f, _)| *f == key) {
            Some((_, v)) => v.push(g),
            None => facets.push((key, vec![g])),
        }
    }
    let varies_across = |i: usize| distinct_at(groups, i) > 1;
    let labelled: Vec<usize> = facet_dims
        .iter()
        .copied()
        .filter(|&i| varies_across(i))
        .collect();
    let base = format!("{}-sweep-{}", slug(scenario), slug(shown(k)));
    let mut charts = Vec::new();
    // Distinct registers charts: their lines, the facet labels (less the mode) they stand for,
    // and how many facets.
    let mut registers_done: Vec<(Vec<Series>, Vec<String>, usize)> = Vec::new();
    for (_, lines) in &facets {
        let label = describe(&lines[0].0, others, &labelled);
        let within = |i: usize| distinct_at(lines.iter().copied(), i) > 1;
        let mut series_dims: Vec<usize> = (0..others.len()).filter(|&i| within(i)).collect();
        // Where the variant name tells lines apart, it alone names them.
        if let Some(&v) = series_dims.iter().find(|&&i| others[i] == VARIANT) {
            series_dims = vec![v];
        }
        let constant: Vec<usize> = (0..others.len())
            .filter(|&i| !within(i) && !labelled.contains(&i))
            .collect();
        let mut subtitle = Vec::new();
        if !label.is_empty() {
            subtitle.push(label.clone());
        }
        let shared = describe(&lines[0].0, others, &constant);
        if !shared.is_empty() {
            subtitle.push(shared);
        }
        let file = if facets.len() > 1 {
            format!("{base}-{}", label_slug(&label))
        } else {
            base.clone()
        };
        // A line the variants' names tell apart better than a define's value (issue 29:
        // legends read `ORDER=0 … ORDER=3`): the stem its variants' names share comes first,
        // `tilex (ORDER=1)`.
        let by_variant = series_dims.iter().any(|&i| others[i] == VARIANT);
        let stems: Vec<(&Vec<Option<String>>, String)> = lines
            .iter()
            .map(|(id, pts)| (id, name_stem(pts.iter().map(|(_, r)| r.get("variant")))))
            .collect();
        // Only where the stems tell every line apart (`wg` for wg32-x1 and wg32-x4 does not).
        let distinct: BTreeSet<&str> = stems.iter().map(|(_, s)| s.as_str()).collect();
        let by_variant = by_variant || distinct.len() < stems.len();
        let name = |id: &[Option<String>]| {
            let d = describe(id, others, &series_dims);
            let stem = stems
                .iter()
                .find(|(i, _)| i.as_slice() == id)
                .map(|(_, s)| s.as_str())
                .unwrap_or("");
            if by_variant || stem.is_empty() || d.is_empty() || d.contains(stem) {
                d
            } else {
                format!("{stem} ({d})")
            }
        };
        let time = time_chart(scenario, k, lines, &name, subtitle.clone(), file.clone());
        charts.push(time);

        let regs: Vec<Series> = lines
            .iter()
            .map(|(id, pts)| Series {
                name: name(id),
                points: pts
                    .iter()
                    .filter_map(|(x, r)| {
                        registers(run, r).map(|y| Point {
                            x: *x,
                            y,
                            lo: None,
                            hi: None,
                        })
                    })
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        if regs.is_empty() {
            continue;
        }
        // Registers belong to the pipeline: charts that would repeat one are drawn once.
        let no_mode: Vec<&str> = label
            .split(", ")
            .filter(|kv| !kv.is_empty() && !kv.starts_with("mode="))
            .collect();
        let facet_label = no_mode.join(", ");
        match registers_done.iter_mut().find(|(s, _, _)| *s == regs) {
            Some((_, labels, n)) => {
                *n += 1;
                if !labels.contains(&facet_label) {
                    labels.push(facet_label);
                }
            }
            None => registers_done.push((regs, vec![facet_label], 1)),
        }
    }
    let n_reg = registers_done.len();
    for (series, covers, n) in &registers_done {
        let mut subtitle = Vec::new();
        if facets.len() > 1 && *n == facets.len() {
            let dims: Vec<&str> = labelled.iter().map(|&i| shown(others[i])).collect();
            subtitle.push(format!("the same for every {}", dims.join(" and ")));
        } else if covers.iter().any(|c| !c.is_empty()) {
            subtitle.push(covers.join("; "));
        }
        let file = if n_reg > 1 {
            format!("{base}-registers-{}", label_slug(&covers[0]))
        } else {
            format!("{base}-registers")
        };
        let title = format!("{scenario}: registers per thread against {}", shown(k));
        let log_x = log_x(series);
        let svg = charts::line_chart(&LineChart {
            title: &title,
            subtitle: subtitle.clone(),
            x_label: x_label(k, log_x),
            y_label: "registers per thread".into(),
            series,
            log_x,
            log_y: false,
            from_zero: true,
        });
        let mut caption = format!("{scenario}: registers per thread against {}", shown(k));
        if let Some(s) = subtitle.first() {
            let _ = write!(caption, ", {s}");
        }
        charts.push(Chart {
            file,
            caption,
            svg,
            notes: Vec::new(),
        });
    }
    charts
}

/// The leading word the names share, cut at the first digit or `-`: `tilex` for tilex4-wg8x8
/// and tilex16-wg8x8, `rowmajor` for rowmajor-wg8x8; empty when they share none.
pub(super) fn name_stem<'a>(mut names: impl Iterator<Item = &'a str>) -> String {
    let Some(first) = names.next() else {
        return String::new();
    };
    let mut common: &str = first;
    for n in names {
        let len = common
            .chars()
            .zip(n.chars())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a.len_utf8())
            .sum();
        common = &common[..len];
    }
    let cut = common
        .find(|c: char| c.is_ascii_digit() || c == '-')
        .unwrap_or(common.len());
    common[..cut].to_string()
}

fn log_x(series: &[Series]) -> bool {
    let (lo, hi) = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    lo > 0.0 && hi / lo >= 8.0
}

fn x_label(k: &str, log: bool) -> String {
    if log {
        format!("{} (log scale)", shown(k))
    } else {
        shown(k).to_string()
    }
}

fn time_chart(
    scenario: &str,
    k: &str,
    lines: &[&Group],
    name: &dyn Fn(&[Option<String>]) -> String,
    subtitle: Vec<String>,
    file: String,
) -> Chart {
    let max_ns = lines
        .iter()
        .flat_map(|(_, pts)| pts.iter().filter_map(|(_, r)| r.num("median_ns")))
        .fold(0.0, f64::max);
    let (div, unit) = time_unit(max_ns);
    let series: Vec<Series> = lines
        .iter()
        .map(|(id, pts)| Series {
            name: name(id),
            points: pts
                .iter()
                .filter_map(|(x, r)| {
                    r.num("median_ns").map(|m| Point {
                        x: *x,
                        y: m / div,
                        lo: r.num("median_ci_low_ns").map(|v| v / div),
                        hi: r.num("median_ci_high_ns").map(|v| v / div),
                    })
                })
                .collect(),
        })
        .collect();
    let log_y = charts::spans_decades(series.iter().flat_map(|s| s.points.iter().map(|p| p.y)));
    let log_x = log_x(&series);
    let title = format!("{scenario}: median time against {} (95 % CI)", shown(k));
    let svg = charts::line_chart(&LineChart {
        title: &title,
        subtitle: subtitle.clone(),
        x_label: x_label(k, log_x),
        y_label: if log_y {
            format!("median time ({unit}, log scale)")
        } else {
            format!("median time ({unit})")
        },
        series: &series,
        log_x,
        log_y,
        from_zero: false,
    });
    let mut caption = format!("{scenario}: median time against {}", shown(k));
    if let Some(s) = subtitle.first() {
        let _ = write!(caption, ", {s}");
    }
    Chart {
        file,
        caption,
        svg,
        notes: Vec::new(),
    }
}
