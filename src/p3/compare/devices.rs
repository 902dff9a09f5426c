//! Which device and driver a row ran on: pairs from different ones say nothing about a code
//! change.
use super::*;

/// The user-facing refusal of a comparison with cross-device pairs (the command line's
/// default; `--allow-cross-device` keeps them, marked). None when every pair shares its
/// device and driver.
pub fn cross_device_refusal(c: &Comparison) -> Option<String> {
    if c.cross_device.is_empty() {
        return None;
    }
    let which: Vec<String> = c
        .cross_device
        .iter()
        .map(|(b, n)| format!("base ran on {b}, new on {n}"))
        .collect();
    Some(format!(
        "{}; timings from different devices or drivers do not measure a code change \
         (--allow-cross-device compares them anyway and marks each such pair)",
        which.join("; ")
    ))
}

/// Fill the device columns a results.csv row leaves empty (files written before a column
/// existed) from the folder's run.json (runs.json in a merged folder: the run with the row's
/// `run_id`), so that the cross-device rule sees every device p3lab recorded.
pub(super) fn fill_from_run_json(run: &mut RunData) {
    let Ok(folder) = crate::runfolder::RunFolder::open(&run.dir) else {
        return;
    };
    for r in &mut run.results {
        let Some(meta) = folder.run(r.get("run_id")) else {
            continue;
        };
        let d = &meta.device;
        let columns = [
            ("device_name", &d.name),
            ("device_uuid", &d.uuid),
            ("driver_name", &d.driver_name),
            ("driver_info", &d.driver_info),
            ("driver_version", &d.driver_version),
        ];
        for (column, value) in columns {
            if !r.get(column).is_empty() || value.is_empty() {
                continue;
            }
            // A value that is not the column's type (a hand-edited run.json) is left out.
            if let Err(e) = r.set(column, value) {
                tracing::debug!("run.json device {column}: {e:#}");
            }
        }
    }
}

/// What a results.csv row says about the device and driver it ran on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DeviceId {
    pub(super) name: String,
    pub(super) uuid: String,
    pub(super) driver_name: String,
    pub(super) driver_version: String,
    pub(super) driver_info: String,
}

impl DeviceId {
    pub(super) fn of(r: &Record) -> Self {
        DeviceId {
            name: r.get("device_name").to_string(),
            uuid: r.get("device_uuid").to_string(),
            driver_name: r.get("driver_name").to_string(),
            driver_version: r.get("driver_version").to_string(),
            driver_info: r.get("driver_info").to_string(),
        }
    }

    /// Same device model (by name; by UUID where a side has no name) and same driver (version
    /// and info): timings that measure the code, not the hardware. Two cards of one model are
    /// the same device here (issue 29: two H200s of one driver were refused as cross-device);
    /// [`DeviceId::same_card`] tells them apart for the note. A field missing on either side
    /// (older files) does not count as a difference.
    pub(super) fn same_as(&self, o: &DeviceId) -> bool {
        let eq = |a: &str, b: &str| a.is_empty() || b.is_empty() || a == b;
        let device = if !self.name.is_empty() && !o.name.is_empty() {
            self.name == o.name
        } else {
            eq(&self.uuid, &o.uuid)
        };
        device
            && eq(&self.driver_version, &o.driver_version)
            && eq(&self.driver_info, &o.driver_info)
    }

    /// The same card (UUID), where both sides recorded one.
    pub(super) fn same_card(&self, o: &DeviceId) -> bool {
        self.uuid.is_empty() || o.uuid.is_empty() || self.uuid == o.uuid
    }

    pub(super) fn describe(&self) -> String {
        let name = if self.name.is_empty() {
            "an unnamed device"
        } else {
            &self.name
        };
        let mut s = format!("`{name}`");
        if !self.uuid.is_empty() {
            let _ = write!(s, " (uuid {})", self.uuid);
        }
        let driver: Vec<&str> = [self.driver_name.as_str(), self.driver_info.as_str()]
            .into_iter()
            .filter(|x| !x.is_empty())
            .collect();
        if !driver.is_empty() || !self.driver_version.is_empty() {
            let _ = write!(s, " with driver {}", driver.join(" "));
            if !self.driver_version.is_empty() {
                let _ = write!(s, " (version {})", self.driver_version);
            }
        }
        s
    }
}
