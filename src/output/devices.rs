//! `p3lab devices`: what each Vulkan device offers, as a table, CSV or JSON.
use crate::vk::DeviceInfo;

fn yn(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// A number, or empty where the device does not say.
fn opt(v: Option<u32>) -> String {
    v.map_or_else(String::new, |n| n.to_string())
}

/// Field name and value pairs, in the order every format prints them.
fn fields(d: &DeviceInfo) -> Vec<(String, String)> {
    let mut f = vec![
        ("index".into(), d.index.to_string()),
        ("name".into(), d.name.clone()),
        ("vendor_id".into(), format!("0x{:04x}", d.vendor_id)),
        ("vendor".into(), d.vendor.clone()),
        ("device_type".into(), d.device_type.clone()),
        ("driver_name".into(), d.driver_name.clone()),
        ("driver_info".into(), d.driver_info.clone()),
        ("api_version".into(), d.api_version.clone()),
        ("uuid".into(), d.uuid.clone()),
        (
            "subgroup_size_default".into(),
            d.subgroup_size_default.to_string(),
        ),
        ("subgroup_size_min".into(), d.subgroup_size_min.to_string()),
        ("subgroup_size_max".into(), d.subgroup_size_max.to_string()),
        (
            "compute_required_subgroup_size".into(),
            yn(d.compute_required_subgroup_size).into(),
        ),
        (
            "compute_full_subgroups".into(),
            yn(d.compute_full_subgroups).into(),
        ),
        (
            "max_compute_workgroup_invocations".into(),
            d.max_compute_workgroup_invocations.to_string(),
        ),
        (
            "max_compute_workgroup_size".into(),
            format!(
                "{}x{}x{}",
                d.max_compute_workgroup_size[0],
                d.max_compute_workgroup_size[1],
                d.max_compute_workgroup_size[2]
            ),
        ),
        (
            "max_compute_workgroup_subgroups".into(),
            d.max_compute_workgroup_subgroups.to_string(),
        ),
        (
            "max_compute_shared_memory_bytes".into(),
            d.max_compute_shared_memory_bytes.to_string(),
        ),
        (
            "max_storage_buffer_range".into(),
            d.max_storage_buffer_range.to_string(),
        ),
        (
            "timestamp_period_ns".into(),
            d.timestamp_period_ns.to_string(),
        ),
        (
            "timestamp_valid_bits".into(),
            d.timestamp_valid_bits.to_string(),
        ),
        (
            "pipeline_statistics_query".into(),
            yn(d.pipeline_statistics_query).into(),
        ),
        ("host_query_reset".into(), yn(d.host_query_reset).into()),
        ("synchronization2".into(), yn(d.synchronization2).into()),
        (
            "device_local_bytes".into(),
            d.device_local_bytes.to_string(),
        ),
        ("nv_sm_count".into(), opt(d.nv_sm_count)),
        ("nv_warps_per_sm".into(), opt(d.nv_warps_per_sm)),
        (
            "amd_compute_units".into(),
            opt(d.amd_core.and_then(|c| c.compute_units())),
        ),
        (
            "occupancy_rules".into(),
            crate::occupancy::rules(&crate::occupancy::Device::from_info(d))
                .map_or_else(String::new, |r| r.arch),
        ),
    ];
    for (e, has) in &d.extensions {
        f.push((e.clone(), yn(*has).into()));
    }
    // `requires = ["cooperative_matrix:<this>"]` names one of them.
    f.push((
        "cooperative_matrix".into(),
        d.cooperative_matrix
            .iter()
            .filter(|c| c.scope == "subgroup")
            .map(|c| c.label() + if c.saturating { " sat" } else { "" })
            .collect::<Vec<_>>()
            .join("; "),
    ));
    f
}

/// Per device a `== device N: NAME` line, then one aligned `field  value` line per field.
pub fn table(devices: &[DeviceInfo]) -> String {
    let mut out = String::new();
    for d in devices {
        let f = fields(d);
        let w = f.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        out.push_str(&format!("== device {}: {}\n", d.index, d.name));
        for (k, v) in f.iter().skip(1) {
            out.push_str(&format!("  {k:<w$}  {v}\n"));
        }
    }
    out
}

/// One row per device with one column per field, the header from the first device;
/// text cells quoted against spreadsheet formulas; empty for no devices.
pub fn csv(devices: &[DeviceInfo]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(vec![]);
    if let Some(first) = devices.first() {
        w.write_record(fields(first).iter().map(|(k, _)| k.as_str()))?;
    }
    for d in devices {
        crate::results::csv_safe::write_record(&mut w, fields(d).iter().map(|(_, v)| v.as_str()))?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The devices' whole [`DeviceInfo`] (more than the table's fields), as a pretty JSON array.
pub fn json(devices: &[DeviceInfo]) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(devices)?)
}
