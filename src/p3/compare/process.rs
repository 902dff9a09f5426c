//! The process-level SD two runs' pairs carry (issue 41): each run is a process of its own,
//! and a process shifts every time it measures (its clock, where its memory sits, its
//! neighbours). The device's measured SD (`p3lab calibrate-process`, cached per device and
//! driver, or `compare --process-sd FILE`) where there is one; otherwise a conservative value
//! for the device type, and the comparison says which it used and where from.
use super::*;
use crate::peaks::ProcessSd;
use crate::stats::inference::{CPU_PROCESS_SD, GPU_PROCESS_SD};

/// A measured process SD `compare` may use, and where it came from (a cache file, a
/// `--process-sd` file).
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredProcessSd {
    /// The calibration's result.
    pub sd: ProcessSd,
    /// The file it was read from.
    pub from: PathBuf,
}

/// The SD one pair of two runs carries, and the sentence that says which and why.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ProcessChoice {
    /// The SD per process, as a fraction; None where nothing is added.
    pub(super) sd: Option<f64>,
    /// What the comparison prints about it (one line per device).
    pub(super) note: String,
}

/// The process SD for a pair of rows `b` (base) and `n` (new) from two runs: the measured
/// one of the base row's device and driver when `measured` has it, else a conservative value
/// for its device type: [`CPU_PROCESS_SD`] on a CPU device, [`GPU_PROCESS_SD`] on a GPU,
/// nothing where results.csv names no device type (runs from before the column).
pub(super) fn process_sd_for(
    b: &Record,
    n: &Record,
    measured: &[MeasuredProcessSd],
) -> ProcessChoice {
    let uuid = b.get("device_uuid");
    let driver = b.num("driver_version").map(|d| d as u32);
    let name = match b.get("device_name") {
        "" => "this device".to_string(),
        d => d.to_string(),
    };
    let hit = measured
        .iter()
        .find(|m| driver.is_some_and(|d| crate::peaks::process_mismatch(&m.sd, uuid, d).is_none()));
    if let Some(m) = hit {
        // An SD estimated from k processes is known only so well: the next process is
        // predicted with Student's t on k − 1 degrees of freedom, not the normal's 1.96.
        let df = f64::from(m.sd.processes.max(2) - 1);
        let sd =
            m.sd.sd()
                .map(|s| s * crate::stats::inference::t975(df) / 1.96);
        return ProcessChoice {
            sd,
            note: format!(
                "{name}: each pair of the two runs carries the {}, as {:.2} % (t on {df} degrees of freedom) ({})",
                m.sd.describe(),
                sd.unwrap_or(0.0) * 100.0,
                m.from.display()
            ),
        };
    }
    let cpu = [b, n].iter().any(|r| r.get("device_type") == "cpu");
    let gpu = [b, n]
        .iter()
        .any(|r| !matches!(r.get("device_type"), "" | "cpu"));
    let missing =
        "no calibration for this device and driver (`p3lab calibrate-process` measures one)";
    if cpu {
        ProcessChoice {
            sd: Some(CPU_PROCESS_SD),
            note: format!(
                "{name}: {missing}: each pair of the two runs carries a conservative process SD of {:.0} % for a CPU device (two processes of unchanged code on lavapipe ran up to 1.16x apart); for smaller changes compare variants of one run (`p3lab compare RUN --pair BASE=NEW`)",
                CPU_PROCESS_SD * 100.0
            ),
        }
    } else if gpu {
        ProcessChoice {
            sd: Some(GPU_PROCESS_SD),
            note: format!(
                "{name}: {missing}: each pair of the two runs carries a process SD of {:.2} % for a GPU (the SM clock a process gets, measured on H100s and H200s)",
                GPU_PROCESS_SD * 100.0
            ),
        }
    } else {
        ProcessChoice {
            sd: None,
            note: format!(
                "{name}: {missing}, and results.csv names no device type: no process SD in the pairs' intervals"
            ),
        }
    }
}

/// Records `note` once in the comparison's process lines.
pub(super) fn note_once(cmp: &mut Comparison, note: String) {
    if !cmp.process.contains(&note) {
        cmp.process.push(note);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(device_type: &str, uuid: &str, driver: &str) -> Record {
        let fields: BTreeMap<String, String> = [
            ("schema_version", "2"),
            ("scenario", "s"),
            ("variant", "a"),
            ("status", "ok"),
            ("device_name", "llvmpipe (LLVM 15.0.6, 256 bits)"),
            ("device_type", device_type),
            ("device_uuid", uuid),
            ("driver_version", driver),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        Record::from_cells(2, fields).unwrap()
    }

    fn measured(uuid: &str, driver: u32, sd_pct: f64) -> MeasuredProcessSd {
        let rows = vec![crate::peaks::RowSd {
            row: "peak_dram_read/x".into(),
            kind: "memory".into(),
            processes: 6,
            observed_pct: sd_pct,
            within_pct: 0.0,
            sd_pct,
        }];
        MeasuredProcessSd {
            sd: ProcessSd {
                schema_version: crate::peaks::PROCESS_SD_SCHEMA_VERSION,
                device_name: "llvmpipe".into(),
                device_uuid: uuid.into(),
                device_type: "cpu".into(),
                driver_version: driver,
                measured: "2026-11-27".into(),
                processes: 6,
                seconds: None,
                kinds: crate::peaks::pool_kinds(&rows),
                rows,
            },
            from: PathBuf::from("/cache/process_sd/u1-5.json"),
        }
    }

    #[test]
    fn a_measured_sd_wins_over_the_device_types_constant() {
        let (b, n) = (row("cpu", "u1", "5"), row("cpu", "u1", "5"));
        let m = [measured("u1", 5, 2.1)];
        let c = process_sd_for(&b, &n, &m);
        // 2.1 % from 6 processes: t(5) = 2.571 against 1.96 widens it to 2.75 %.
        assert!(
            (c.sd.unwrap() - 0.021 * 2.5706 / 1.96).abs() < 1e-5,
            "{c:?}"
        );
        assert!(
            c.note.contains("as 2.75 % (t on 5 degrees of freedom)"),
            "{}",
            c.note
        );
        assert!(
            c.note
                .contains("process SD 2.10 % (memory 2.10 %) measured 2026-11-27 over 6 processes"),
            "{}",
            c.note
        );
        assert!(c.note.contains("/cache/process_sd/u1-5.json"), "{}", c.note);
    }

    #[test]
    fn without_a_calibration_a_device_type_gets_its_conservative_value() {
        // Another driver's calibration is not this one's.
        let m = [measured("u1", 4, 2.1)];
        let c = process_sd_for(&row("cpu", "u1", "5"), &row("cpu", "u1", "5"), &m);
        assert_eq!(c.sd, Some(CPU_PROCESS_SD));
        assert!(
            c.note.contains("no calibration for this device"),
            "{}",
            c.note
        );
        assert!(
            c.note
                .contains("conservative process SD of 6 % for a CPU device"),
            "{}",
            c.note
        );
        // A GPU is not a CPU device: its own value, never the CPU's.
        let g = process_sd_for(&row("discrete", "g", "1"), &row("discrete", "g", "1"), &[]);
        assert_eq!(g.sd, Some(GPU_PROCESS_SD));
        assert!(g.note.contains("0.35 % for a GPU"), "{}", g.note);
        // No device type (a run from before the column): nothing added, and said.
        let old = process_sd_for(&row("", "", ""), &row("", "", ""), &[]);
        assert_eq!(old.sd, None);
        assert!(old.note.contains("names no device type"), "{}", old.note);
    }
}
