//! The run folder: `--out` templates expanded, the folder's lock (one p3lab per folder), and
//! the rows already in it (`--resume`).
use super::*;

/// Rows per status.
pub(super) fn count_statuses<'a>(
    rows: impl Iterator<Item = &'a crate::results::ResultRow>,
) -> std::collections::BTreeMap<String, u64> {
    let mut counts = std::collections::BTreeMap::new();
    for r in rows {
        *counts.entry(r.status.as_str().to_string()).or_insert(0) += 1;
    }
    counts
}

/// `--out` with `{host}`, `{device}`, `{device_name}` expanded for the device `--device` picks
/// (output/out_template.rs); with `--resume`, give the same `--device` as the first run.
pub(super) fn expand_out(out: &std::path::Path, device: Option<&str>) -> anyhow::Result<PathBuf> {
    use crate::output::out_template::{expand, Values};
    let host = crate::output::out_template::host();
    let needs_device = out.to_string_lossy().contains("{device");
    let (index, name) = if needs_device {
        let inst = Instance::new(false)?;
        let infos: Vec<_> = inst.devices()?.into_iter().map(|(_, d)| d).collect();
        let idx = info::choose(&infos, device).map_err(UserError::Flag)?;
        (Some(idx), Some(infos[idx].name.clone()))
    } else {
        (None, None)
    };
    let v = Values {
        host: &host,
        device_index: index,
        device_name: name.as_deref(),
    };
    Ok(expand(out, &v).map_err(|e| UserError::Flag(format!("--out {e}")))?)
}

/// Hold an exclusive lock on `<dir>/.p3lab.lock` for as long as the returned file lives.
pub(super) fn lock_folder(dir: &std::path::Path) -> anyhow::Result<std::fs::File> {
    let path = dir.join(".p3lab.lock");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", path.display()))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(UserError::Flag(format!(
            "--out {}: another p3lab is writing into this folder",
            dir.display()
        ))
        .into()),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(anyhow::anyhow!("locking {}: {e}", path.display()))
        }
    }
}
