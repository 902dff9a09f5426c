//! The chip's PM-sampling metrics: which fill the columns, what `--counters` globs select,
//! what `p3lab counters` lists, and each metric's unit.
use super::*;

/// NVIDIA PM-sampling metrics for each column, most specific first: the Triage variants are
/// one-pass on GH100 together (measured on an H100); the plain throughputs need 19/4/5 passes
/// there and are tried only where a chip takes them in one.
pub const NV_METRICS: &[(Col, &[&str])] = &[
    (
        Col::Sm,
        &[
            "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Dram,
        &["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
    ),
    (
        Col::L2,
        &[
            "LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed",
            "lts__throughput.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::L1tex,
        &[
            "SM_A.TriageCompute.l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
            "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Tensor,
        &["sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"],
    ),
    (Col::DramRead, &["dram__bytes_read.sum"]),
    (Col::DramWrite, &["dram__bytes_write.sum"]),
    (Col::SmClock, &["gpc__cycles_elapsed.avg.per_second"]),
    // Issue 39: the counter behind each declared unit, the SM's pipes and the L1TEX data
    // pipe's shared and texture wavefronts. The TriageCompute forms are the one-pass set;
    // each is taken only while the whole config still fits one pass.
    (
        Col::Fma,
        &[
            "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::FmaHeavy,
        &[
            "TPC.TriageCompute.sm__inst_executed_pipe_fmaheavy_realtime.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Alu,
        &[
            "TPC.TriageCompute.sm__inst_executed_pipe_alu_realtime.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Fp64,
        &[
            "TPC.TriageCompute.sm__pipe_fp64_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Xu,
        &[
            "SM_A.TriageCompute.sm__inst_executed_pipe_xu_realtime.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Shared,
        &[
            "SM_A.TriageCompute.l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        Col::Tex,
        &[
            "SM_A.TriageCompute.l1tex__data_pipe_tex_wavefronts.avg.pct_of_peak_sustained_elapsed",
            "l1tex__data_pipe_tex_wavefronts.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
];

/// The unit of a PM-sampling metric, from its name.
pub fn nv_unit(name: &str) -> &'static str {
    if name.contains("pct_of_peak") || name.ends_with(".pct") {
        "%"
    } else if name.ends_with(".per_second") {
        "1/s"
    } else if name.contains("bytes") {
        "bytes"
    } else if name.ends_with(".ratio") {
        "ratio"
    } else {
        "count"
    }
}

/// `--counters` globs against the chip's PM-sampling metrics: the full names to capture, and
/// the globs that matched none.
pub(super) fn nv_select(
    c: &Cupti,
    chip: &str,
    avail: &[u8],
    globs: &[String],
) -> Result<(Vec<String>, Vec<String>), String> {
    if globs.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let all = nv_metrics(c, chip, avail).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut unmatched = Vec::new();
    for g in globs {
        let m = globset::GlobBuilder::new(g)
            .case_insensitive(true)
            .build()
            .map_err(|e| format!("counter glob `{g}`: {e}"))?
            .compile_matcher();
        let mut hit = false;
        for (base, kind) in &all {
            let full = nv_full_name(base, *kind);
            if m.is_match(base) || m.is_match(&full) {
                hit = true;
                if !out.contains(&full) {
                    out.push(full);
                }
            }
        }
        // A full name with its own rollup (`dram__bytes.sum.per_second`) is taken as given.
        if !hit && !g.contains(['*', '?', '[']) && g.contains('.') {
            let base = g.split('.').find(|p| p.contains("__")).unwrap_or("");
            if all.iter().any(|(b, _)| b == base) {
                hit = true;
                out.push(g.clone());
            }
        }
        if !hit {
            unmatched.push(g.clone());
        }
    }
    Ok((out, unmatched))
}

/// Every base metric of the chip, with its kind.
pub(super) fn nv_metrics(
    c: &Cupti,
    chip: &str,
    avail: &[u8],
) -> Result<Vec<(String, cupti::MetricType)>, cupti::CuptiError> {
    let host = c.host(chip, avail)?;
    let mut all = Vec::new();
    for kind in [
        cupti::MetricType::Counter,
        cupti::MetricType::Ratio,
        cupti::MetricType::Throughput,
    ] {
        for n in host.base_metrics(kind)? {
            all.push((n, kind));
        }
    }
    Ok(all)
}

/// `p3lab counters` on a CUPTI device: every PM-sampling metric of the chip, with the full
/// name `--counters` takes.
pub fn list_cupti(
    uuid: &str,
    explicit: Option<&std::path::Path>,
) -> Result<(String, Vec<cupti::MetricInfo>), String> {
    let c = Cupti::load(explicit)?;
    let device = parse_uuid(uuid)
        .and_then(|u| cupti::cuda_index_of(&u))
        .unwrap_or(0);
    let err = |e: cupti::CuptiError| {
        if e.is_privilege() {
            format!("{e}: {PRIVILEGE_FIX}")
        } else {
            e.to_string()
        }
    };
    let chip = c.chip_name(device).map_err(err)?;
    let avail = c.counter_availability(device).map_err(err)?;
    let all = nv_metrics(&c, &chip, &avail).map_err(err)?;
    let host = c.host(&chip, &avail).map_err(err)?;
    let list = all
        .into_iter()
        .map(|(base, kind)| {
            let mut info = host.properties(&base).unwrap_or(cupti::MetricInfo {
                name: base.clone(),
                kind: kind.label().into(),
                hw_unit: String::new(),
                dim_unit: String::new(),
                description: String::new(),
            });
            info.name = nv_full_name(&base, kind);
            info.kind = kind.label().into();
            info
        })
        .collect();
    Ok((chip, list))
}
