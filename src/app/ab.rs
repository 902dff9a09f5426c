//! `p3lab ab`: before/after for what cannot share a process (two builds of p3lab or of the
//! shader's project, two drivers, two `--set` values run apart): the two sides run the same
//! `p3lab run` arguments in alternating fresh processes (base, new, new, base, ...), and each
//! row's change is judged over the pairs of processes (`stats::ab`), so the process-level
//! variance is measured, not assumed (issue 41, item 4).
use super::*;
use crate::results::{Record, RowKey, RowStatus};
use crate::stats::ab::{overall_ratio, paired_ratio, AbRatio, MIN_PAIRS_FOR_A_CHANGE};
use std::collections::BTreeMap;

/// One side's process: its binary, its extra `--set`s and environment.
struct Side<'a> {
    name: &'static str,
    bin: PathBuf,
    set: &'a [String],
    env: Vec<(String, String)>,
}

/// `NAME=VALUE` pairs of `--new-env`, each checked.
fn env_pairs(list: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    list.iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(UserError::Flag(format!("--new-env {kv}: expected NAME=VALUE")).into()),
        })
        .collect()
}

/// Run one process of `side` into `dir`; its rows, or why not (exit 2 where the run said its
/// arguments were wrong).
fn run_side(side: &Side, run: &[String], dir: &std::path::Path) -> anyhow::Result<Vec<Record>> {
    if run
        .iter()
        .any(|a| a == "--out" || a == "-o" || a.starts_with("--out="))
    {
        return Err(UserError::Flag(
            "p3lab ab -- RUN_ARGS: leave --out out, each process gets its own folder under ab's --out"
                .into(),
        )
        .into());
    }
    let mut c = std::process::Command::new(&side.bin);
    c.args(["-q", "--color", "never", "run"]).args(run);
    for s in side.set {
        c.args(["--set", s]);
    }
    c.arg("--out").arg(dir).envs(side.env.iter().cloned());
    let o = c
        .stdout(std::process::Stdio::null())
        .output()
        .map_err(|e| UserError::Flag(format!("cannot start {}: {e}", side.bin.display())))?;
    let code = o.status.code().unwrap_or(-1);
    if !matches!(code, exit::OK | exit::ROWS_FAILED) {
        let err = String::from_utf8_lossy(&o.stderr);
        let tail: Vec<&str> = err.lines().rev().take(6).collect();
        let msg = format!(
            "the {} side's `{} run ... --out {}` failed with exit {code}:\n{}",
            side.name,
            side.bin.display(),
            dir.display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
        return Err(if code == exit::BAD_INPUT {
            UserError::Flag(msg).into()
        } else {
            anyhow::anyhow!(msg)
        });
    }
    crate::results::read_folder(dir)
}

/// `p3lab ab`: `--pairs` pairs of processes in the order base, new, new, base, ... (so a slow
/// drift of the machine weighs on both sides alike), then per row the paired ratio new ÷ base
/// with its interval over the pairs, and overall the geometric mean per pair over its rows.
pub(super) fn ab(a: crate::cli::AbArgs) -> anyhow::Result<i32> {
    if !(a.noise.is_finite() && (0.0..50.0).contains(&a.noise)) {
        return Err(
            UserError::Flag(format!("--noise {}: a percentage from 0 to 50", a.noise)).into(),
        );
    }
    let me = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find p3lab's own binary to start processes: {e}"))?;
    let side = |name, bin: &Option<PathBuf>, set, env| -> anyhow::Result<Side> {
        let bin = bin.clone().unwrap_or_else(|| me.clone());
        if !bin.is_file() {
            let flag = if name == "base" {
                "--base-bin"
            } else {
                "--new-bin"
            };
            return Err(UserError::Flag(format!("{flag} {}: no such file", bin.display())).into());
        }
        Ok(Side {
            name,
            bin,
            set,
            env,
        })
    };
    let sides = [
        side("base", &a.base_bin, &a.base_set, Vec::new())?,
        side("new", &a.new_bin, &a.new_set, env_pairs(&a.new_env)?)?,
    ];
    std::fs::create_dir_all(&a.out)
        .map_err(|e| UserError::Flag(format!("--out {}: cannot create: {e}", a.out.display())))?;
    // The params the sides set differently leave the row's key: a base row and a new row of
    // the same variant then pair up.
    let differing: Vec<&str> = a
        .base_set
        .iter()
        .chain(&a.new_set)
        .filter_map(|kv| kv.split_once('=').map(|(k, _)| k))
        .collect();
    let key_of = |r: &Record| {
        let mut k = r.key();
        k.params = k
            .params
            .split(';')
            .filter(|kv| !differing.iter().any(|d| kv.split('=').next() == Some(*d)))
            .collect::<Vec<_>>()
            .join(";");
        k
    };
    // medians[row][side][pair]; and why a row had no time, by side (its status and reason)
    let mut medians: BTreeMap<RowKey, [Vec<Option<f64>>; 2]> = BTreeMap::new();
    let mut why: BTreeMap<RowKey, String> = BTreeMap::new();
    let n = a.pairs as usize;
    if n < MIN_PAIRS_FOR_A_CHANGE {
        eprintln!(
            "p3lab: warning: -n {n}: {n} pairs cannot confirm a change (the pairs' signs alone reach p = {:.3} at best); a ratio whose interval clears the band reads `inconclusive`. Use -n {MIN_PAIRS_FOR_A_CHANGE} or more for a verdict.",
            2.0 / 2f64.powi(n as i32)
        );
    }
    for k in 0..n {
        // ABBA: even pairs base first, odd pairs new first.
        let order = if k % 2 == 0 { [0, 1] } else { [1, 0] };
        for s in order {
            let dir = a.out.join(format!("{}-{}", sides[s].name, k + 1));
            eprintln!(
                "p3lab: pair {} of {n}, {} → {}",
                k + 1,
                sides[s].name,
                dir.display()
            );
            for r in run_side(&sides[s], &a.run, &dir)? {
                let m = r.row.median_ns.filter(|_| r.status() == RowStatus::Ok);
                if m.is_none() {
                    why.entry(key_of(&r)).or_insert_with(|| {
                        format!(
                            "{} on the {} side: {}",
                            r.status().as_str(),
                            sides[s].name,
                            r.row.reason
                        )
                    });
                }
                let e = medians
                    .entry(key_of(&r))
                    .or_insert_with(|| [vec![None; n], vec![None; n]]);
                e[s][k] = m;
            }
        }
    }
    let noise = a.noise / 100.0;
    let mut lines = Vec::new();
    let mut logs: Vec<Vec<Option<f64>>> = Vec::new();
    let mut table: Vec<Vec<String>> = vec![[
        "scenario",
        "variant",
        "params",
        "mode",
        "pairs",
        "base_median_ns",
        "new_median_ns",
        "ratio",
        "ci_low",
        "ci_high",
        "verdict",
        "p",
    ]
    .map(String::from)
    .to_vec()];
    for (key, [base, new]) in &medians {
        let both: Vec<(f64, f64)> = base
            .iter()
            .zip(new)
            .filter_map(|(b, n)| b.zip(*n))
            .collect();
        logs.push(
            base.iter()
                .zip(new)
                .map(|(b, n)| b.zip(*n).map(|(b, n)| (n / b).ln()))
                .collect(),
        );
        let (b, nw): (Vec<f64>, Vec<f64>) = both.iter().copied().unzip();
        let med = |v: &[f64]| {
            let mut s = v.to_vec();
            s.sort_by(f64::total_cmp);
            crate::stats::median(&s)
        };
        let label = format!(
            "{}/{} [{}] ({})",
            key.scenario, key.variant, key.params, key.mode
        );
        let r = paired_ratio(&b, &nw);
        let verdict = r.map_or("not comparable", |r| r.verdict(noise));
        let figures = match r {
            Some(r) => vec![med(&b), med(&nw), r.ratio, r.ci.0, r.ci.1]
                .into_iter()
                .map(|x| x.to_string())
                .collect(),
            None => vec![String::new(); 5],
        };
        let mut cells = vec![
            key.scenario.clone(),
            key.variant.clone(),
            key.params.clone(),
            key.mode.clone(),
            both.len().to_string(),
        ];
        cells.extend(figures);
        cells.push(verdict.to_string());
        cells.push(r.map(|r| r.p.to_string()).unwrap_or_default());
        table.push(cells);
        lines.push((label, r, verdict, both.len(), key.clone()));
    }
    let path = a.out.join("ab.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in &table {
        crate::results::csv_safe::write_record(&mut w, row)?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("ab.csv: {e}"))?;
    crate::results::write::write_file_atomic(&path, &bytes)?;
    let counts = |v: &str| lines.iter().filter(|l| l.2 == v).count();
    println!(
        "{} rows over {n} pairs of processes: {} improved, {} regressed, {} no change, {} inconclusive, {} not comparable (noise {} %)",
        lines.len(),
        counts("improved"),
        counts("regressed"),
        counts("no change"),
        counts("inconclusive"),
        counts("not comparable"),
        a.noise
    );
    match overall_ratio(&logs) {
        Some(o) => println!("{}", headline(&o, noise)),
        None => println!("no overall ratio: fewer than two pairs with rows on both sides"),
    }
    println!();
    for (label, r, verdict, pairs, key) in &lines {
        match r {
            Some(r) => println!(
                "{label}  {:.4} [{:.4}, {:.4}] over {pairs} pairs, sign-flip p = {:.3}  {verdict}{}",
                r.ratio,
                r.ci.0,
                r.ci.1,
                r.p,
                if *verdict == "inconclusive" {
                    format!(" ({})", r.why_inconclusive())
                } else {
                    String::new()
                }
            ),
            None => println!(
                "{label}  {verdict} ({pairs} pairs with a time on both sides{})",
                why.get(key).map(|w| format!("; {w}")).unwrap_or_default()
            ),
        }
    }
    eprintln!("p3lab: ab.csv in {}", a.out.display());
    if a.fail_on_regression && counts("regressed") > 0 {
        return Ok(exit::REGRESSION);
    }
    Ok(exit::OK)
}

/// The overall line: the geometric mean over rows, its interval over the pairs of processes.
fn headline(o: &AbRatio, noise: f64) -> String {
    let verdict = o.verdict(noise);
    format!(
        "geometric mean of the rows' time ratios new ÷ base, per pair of processes: {:.4} [{:.4}, {:.4}] over {} pairs, sign-flip p = {:.3} ({verdict} overall{}; the interval is over processes, which share every row's process effect)",
        o.ratio,
        o.ci.0,
        o.ci.1,
        o.pairs,
        o.p,
        if verdict == "inconclusive" {
            format!(": {}", o.why_inconclusive())
        } else {
            String::new()
        }
    )
}
