//! What the driver says about a variant's pipelines: executable statistics and
//! VK_AMD_shader_info as metrics, their normalized view (registers, spills, shared memory),
//! and with `--dump-ir` the internal representations as files.
use super::*;

/// Executable statistics and VK_AMD_shader_info as metrics; the normalized view of both.
pub(super) fn driver_statistics(
    ctx: &Context,
    id: &Ident,
    pipelines: &[Pipeline],
    metrics: &mut Vec<MetricRow>,
) -> Normalized {
    let vendor = ctx.info.vendor_id;
    let mut norm = Normalized::default();
    for (i, p) in pipelines.iter().enumerate() {
        let prefix = prepare::pass_prefix(id.v, i);
        match ctx.executable_statistics(p) {
            Ok(stats) => {
                for s in stats {
                    norm.take(vendor, &s.name, s.value);
                    let name = format!("{prefix}{}", s.name);
                    metrics.push(id.metric(
                        "executable_statistic",
                        &name,
                        s.value,
                        stat_unit(&s.name),
                    ));
                    // NVIDIA: bit 36 marks the field; the low bits are per-thread local (spill) bytes.
                    if vendor == 0x10de && s.name == "Local Memory Size" {
                        let decoded = (s.value as u64) & !(1u64 << 36);
                        metrics.push(id.metric(
                            "executable_statistic_decoded",
                            &format!("{prefix}local_memory_bytes_per_thread"),
                            decoded as f64,
                            "bytes",
                        ));
                    }
                }
            }
            Err(e) => tracing::warn!("executable statistics of `{}`: {e:#}", id.v.name),
        }
    }
    // VK_AMD_shader_info: its own statistics, and the normalized view where executable
    // statistics gave none.
    for (i, p) in pipelines.iter().enumerate() {
        let prefix = prepare::pass_prefix(id.v, i);
        match ctx.amd_shader_statistics(p) {
            Ok(Some(st)) => {
                let u = &st.resource_usage;
                for (name, value, unit) in [
                    ("vgprs_used", u.num_used_vgprs as f64, "registers"),
                    ("sgprs_used", u.num_used_sgprs as f64, "registers"),
                    (
                        "vgprs_available",
                        st.num_available_vgprs as f64,
                        "registers",
                    ),
                    (
                        "sgprs_available",
                        st.num_available_sgprs as f64,
                        "registers",
                    ),
                    ("vgprs_physical", st.num_physical_vgprs as f64, "registers"),
                    ("sgprs_physical", st.num_physical_sgprs as f64, "registers"),
                    (
                        "lds_bytes_per_group",
                        u.lds_size_per_local_work_group as f64,
                        "bytes",
                    ),
                    ("lds_used_bytes", u.lds_usage_size_in_bytes as f64, "bytes"),
                    (
                        "scratch_bytes",
                        u.scratch_mem_usage_in_bytes as f64,
                        "bytes",
                    ),
                ] {
                    metrics.push(id.metric(
                        "amd_shader_info",
                        &format!("{prefix}{name}"),
                        value,
                        unit,
                    ));
                }
                if i == 0 {
                    norm.registers.get_or_insert(u.num_used_vgprs);
                    norm.shared_bytes
                        .get_or_insert(u.lds_usage_size_in_bytes.min(u32::MAX as usize) as u32);
                }
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("shader info of `{}`: {e:#}", id.v.name),
        }
    }
    norm
}

/// Driver statistics mapped to vendor-neutral columns. Over several passes the largest value
/// is kept: the most demanding pass limits occupancy.
#[derive(Debug, Default, Clone, Copy)]
pub struct Normalized {
    /// Registers per thread (`registers_per_thread`): NVIDIA's `Register Count`, RADV's `VGPRs`;
    /// None where the driver reports neither.
    pub registers: Option<u32>,
    /// Spilled (local-memory) bytes per thread (`spill_bytes_per_thread`): NVIDIA's `Local Memory
    /// Size` without its flag bit, RADV's spilled VGPRs × 4; None where not reported.
    pub spill_bytes: Option<u32>,
    /// Shared (workgroup) memory bytes per workgroup (`shared_bytes_per_group`): NVIDIA's `Shared
    /// Memory Size`, RADV's `LDS size` (or VK_AMD_shader_info's LDS usage); None where not
    /// reported.
    pub shared_bytes: Option<u32>,
}

impl Normalized {
    fn take(&mut self, vendor_id: u32, name: &str, value: f64) {
        let v = value.max(0.0) as u64;
        let slot = match (vendor_id, name) {
            // NVIDIA (seen on the H200): five statistics.
            (0x10de, "Register Count") => Some((&mut self.registers, v)),
            (0x10de, "Local Memory Size") => Some((&mut self.spill_bytes, v & !(1u64 << 36))),
            (0x10de, "Shared Memory Size") => Some((&mut self.shared_bytes, v)),
            // RADV (AMD; names from Mesa, untested here): VGPRs, spilled VGPRs (4 bytes each
            // per lane), LDS bytes.
            (0x1002, "VGPRs") => Some((&mut self.registers, v)),
            (0x1002, "Spilled VGPRs") => Some((&mut self.spill_bytes, v * 4)),
            (0x1002, "LDS size") => Some((&mut self.shared_bytes, v)),
            _ => None,
        };
        if let Some((slot, v)) = slot {
            let v = u32::try_from(v).unwrap_or(u32::MAX);
            *slot = Some(slot.map_or(v, |old| old.max(v)));
        }
    }
}

/// The unit of a driver statistic, from its name (drivers report none).
pub(super) fn stat_unit(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n == "local memory size" {
        // NVIDIA packs a flag into bit 36; the decoded metric beside it is in bytes.
        "raw"
    } else if n.contains("size") || n.contains("bytes") {
        "bytes"
    } else if n.contains("count") || n.contains("gpr") || n.contains("registers") {
        "count"
    } else {
        ""
    }
}

/// `--dump-ir`: every internal representation of every pipeline executable
/// (VK_KHR_pipeline_executable_properties) and VK_AMD_shader_info's disassembly, as files
/// for `OUT/ir/SCENARIO/VARIANT-PARAMSHASH/` (written by the run's sinks, sink/dumps.rs);
/// none where the driver gives none. A failure is logged, never fatal.
pub(super) fn dump_ir(ctx: &Context, id: &Ident, pipelines: &[Pipeline]) -> Option<Dump> {
    use crate::probe::{file_part, short_hash};
    let (sc, case, v) = (id.sc, id.case, id.v);
    let dir = Path::new("ir").join(file_part(&sc.name)).join(format!(
        "{}-{}",
        file_part(&v.name),
        short_hash(&case.params_label)
    ));
    let mut files: Vec<(String, DumpData)> = Vec::new();
    for (i, p) in pipelines.iter().enumerate() {
        let pass = file_part(&v.passes[i].name);
        match ctx.internal_representations(p) {
            Ok(reprs) => {
                for (k, r) in reprs.into_iter().enumerate() {
                    let ext = if r.is_text { "txt" } else { "bin" };
                    files.push((
                        format!(
                            "{pass}-{}-{k}-{}.{ext}",
                            file_part(&r.executable),
                            file_part(&r.name)
                        ),
                        DumpData::Bytes(r.data),
                    ));
                }
            }
            Err(e) => tracing::warn!("--dump-ir: `{}`: {e:#}", v.name),
        }
        match ctx.amd_disassembly(p) {
            Ok(Some(text)) => files.push((
                format!("{pass}-amd-disassembly.txt"),
                DumpData::Bytes(text.into_bytes()),
            )),
            Ok(None) => {}
            Err(e) => tracing::warn!("--dump-ir: `{}`: {e:#}", v.name),
        }
    }
    if files.is_empty() {
        // Once per run: the driver is the same for every variant.
        static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::warn!(
                "--dump-ir: the driver gives no internal representations (through VK_KHR_pipeline_executable_properties or VK_AMD_shader_info); nothing written"
            );
        }
        return None;
    }
    Some(Dump {
        what: "--dump-ir",
        dir,
        files,
    })
}
