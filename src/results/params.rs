//! results.csv's typed params columns (issue 29): after the fixed columns, one `param_NAME`
//! column per param any scenario of the run has, sorted by name, holding the case's value as a
//! number (blank where the row's scenario has no such param), so that a spreadsheet sorts
//! `param_radius` 32, 128, 256 numerically where the packed `params` cell sorts as text.
//!
//! The packed `params` column stays, and stays the key. The header's fixed part is
//! [`super::header`]`::<ResultRow>()`; what follows it is this module's, and only names
//! starting with [`PARAM_PREFIX`] may follow it.
use std::collections::BTreeSet;

/// What every typed params column's name starts with.
pub const PARAM_PREFIX: &str = "param_";

/// The columns for these param names, in order: `param_NAME` each.
pub fn param_columns(names: &[String]) -> Vec<String> {
    names.iter().map(|n| format!("{PARAM_PREFIX}{n}")).collect()
}

/// The sorted, distinct param names of `cases` (each case's names).
pub fn param_names<'a, I, N>(cases: I) -> Vec<String>
where
    I: IntoIterator<Item = N>,
    N: IntoIterator<Item = &'a String>,
{
    let set: BTreeSet<&String> = cases.into_iter().flatten().collect();
    set.into_iter().cloned().collect()
}

/// The cells of the typed params columns for one row's packed `params` cell (`k=v;k=v`): the
/// value of each name in `names`, blank where the row has no such param.
pub fn param_cells(params: &str, names: &[String]) -> Vec<String> {
    let entries: Vec<(&str, &str)> = params
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    names
        .iter()
        .map(|n| {
            entries
                .iter()
                .find(|(k, _)| *k == n.as_str())
                .map_or_else(String::new, |(_, v)| (*v).to_string())
        })
        .collect()
}

/// Where a header's typed params columns start: the first column named `param_…` (the
/// header's length when there is none).
pub fn params_start<S: AsRef<str>>(header: &[S]) -> usize {
    header
        .iter()
        .position(|h| h.as_ref().starts_with(PARAM_PREFIX))
        .unwrap_or(header.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_follow_the_names_and_leave_absent_params_blank() {
        let names = vec!["n".to_string(), "radius".into(), "width".into()];
        assert_eq!(
            param_cells("radius=256;width=16384", &names),
            ["", "256", "16384"]
        );
        assert_eq!(param_cells("", &names), ["", "", ""]);
        assert_eq!(
            param_columns(&names),
            ["param_n", "param_radius", "param_width"]
        );
        let a = ["width".to_string(), "n".into()];
        let b = ["n".to_string()];
        assert_eq!(param_names([&a[..], &b[..]]), ["n", "width"]);
        assert_eq!(params_start(&["run_id", "params", "param_n"]), 2);
        assert_eq!(params_start(&["run_id", "params"]), 2);
    }
}
