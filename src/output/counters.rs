//! `p3lab counters`: a device's hardware counters, as a table, CSV or JSON: the
//! VK_KHR_performance_query counters a driver offers (AMD, Intel, Qualcomm), or on NVIDIA the
//! chip's CUPTI PM-sampling metrics (listed by src/app/mod.rs through the CUPTI host).
use crate::vk::perf::CounterInfo;

/// The JSON document: always an object, so a device without counters still parses.
#[derive(Debug, serde::Serialize)]
pub struct Listing<'a> {
    /// The device's name (`VkPhysicalDeviceProperties::deviceName`).
    pub device: &'a str,
    /// The Vulkan device index, as `--device` and `p3lab devices` number them.
    pub device_index: usize,
    /// The device's counters could be listed; false with `reason` set.
    pub available: bool,
    /// Why there are no counters (no VK_KHR_performance_query, no compute queue, CUPTI
    /// failed); absent when `available`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// Every counter, in the driver's (or CUPTI's) order; empty when not `available`.
    pub counters: &'a [CounterInfo],
}

/// The terminal table: index, name, category, unit and scope aligned in columns, the
/// description last and unpadded; a header line even for an empty list.
pub fn table(list: &[CounterInfo]) -> String {
    let w = |f: fn(&CounterInfo) -> &str, head: &str| {
        list.iter()
            .map(|c| f(c).chars().count())
            .max()
            .unwrap_or(0)
            .max(head.len())
    };
    let (wn, wc, wu, ws) = (
        w(|c| &c.name, "name"),
        w(|c| &c.category, "category"),
        w(|c| &c.unit, "unit"),
        w(|c| &c.scope, "scope"),
    );
    let mut s = format!(
        "{:>5}  {:<wn$}  {:<wc$}  {:<wu$}  {:<ws$}  description\n",
        "index", "name", "category", "unit", "scope"
    );
    for c in list {
        s += &format!(
            "{:>5}  {:<wn$}  {:<wc$}  {:<wu$}  {:<ws$}  {}\n",
            c.index, c.name, c.category, c.unit, c.scope, c.description
        );
    }
    s
}

/// CSV with columns `index,name,category,unit,scope,storage,description`, text cells
/// quoted against spreadsheet formulas (src/results/csv_safe.rs); the header even when empty.
pub fn csv(list: &[CounterInfo]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "index",
        "name",
        "category",
        "unit",
        "scope",
        "storage",
        "description",
    ])?;
    for c in list {
        crate::results::csv_safe::write_record(
            &mut w,
            [
                c.index.to_string().as_str(),
                &c.name,
                &c.category,
                &c.unit,
                &c.scope,
                &c.storage,
                &c.description,
            ],
        )?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}
