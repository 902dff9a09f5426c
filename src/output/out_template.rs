//! `--out` templates for fleets: `runs/{host}/{device}` gives every host and device a folder
//! of its own, so runs on a shared file system never write into the same folder.
//!
//! - `{host}`: `$P3LAB_HOST` if set (containers and test hosts whose host names are random
//!   or equal), else the kernel's host name; also the `host` column and run.json's `host`.
//! - `{device}`: `device-N`, N the Vulkan device index (`p3lab devices`), as `--device all`
//!   names its folders.
//! - `{device_name}`: the device's name as a file name, e.g. `nvidia-h200`.
//!
//! Each value is reduced to `[A-Za-z0-9._-]` (anything else becomes `-`), so a value can
//! never add a folder level or climb out of one.
use std::path::{Path, PathBuf};

/// The host name p3lab records: `$P3LAB_HOST`, else the kernel's.
pub fn host() -> String {
    match std::env::var("P3LAB_HOST") {
        Ok(h) if !h.trim().is_empty() => h.trim().to_string(),
        _ => std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into()),
    }
}

/// `s` as one path component: `[A-Za-z0-9._-]`, runs of anything else as one `-`, never
/// empty, `.` or `..`.
pub fn component(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() || out.chars().all(|c| c == '.') {
        "_".into()
    } else {
        out
    }
}

/// Whether `out` has a `{...}` to expand.
pub fn is_template(out: &Path) -> bool {
    out.to_string_lossy().contains('{')
}

/// The values of one run.
pub struct Values<'a> {
    /// `{host}`: `$P3LAB_HOST`, else the kernel's host name ([`host`]).
    pub host: &'a str,
    /// `{device}` becomes `device-N` with this index; `None` makes `{device}` an error.
    pub device_index: Option<usize>,
    /// `{device_name}`, lower-cased and reduced to a file name; `None` makes `{device_name}` an error.
    pub device_name: Option<&'a str>,
}

/// `out` with its placeholders replaced. An unknown placeholder, an unclosed `{`, or a device
/// placeholder without a device is an error naming it (for `--out`).
pub fn expand(out: &Path, v: &Values) -> Result<PathBuf, String> {
    let s = out.to_string_lossy();
    let mut res = String::new();
    let mut rest: &str = &s;
    while let Some(i) = rest.find('{') {
        res.push_str(&rest[..i]);
        let Some(j) = rest[i..].find('}') else {
            return Err(format!("`{s}`: `{{` without a closing `}}`"));
        };
        let name = &rest[i + 1..i + j];
        let value = match name {
            "host" => component(v.host),
            "device" => match v.device_index {
                Some(n) => format!("device-{n}"),
                None => return Err(format!("`{s}`: {{device}} needs a device")),
            },
            "device_name" => match v.device_name {
                Some(d) => component(&d.to_lowercase()),
                None => return Err(format!("`{s}`: {{device_name}} needs a device")),
            },
            other => {
                return Err(format!(
                    "`{s}`: unknown placeholder {{{other}}} (p3lab knows {{host}}, {{device}} and {{device_name}})"
                ))
            }
        };
        res.push_str(&value);
        rest = &rest[i + j + 1..];
    }
    res.push_str(rest);
    Ok(PathBuf::from(res))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v<'a>(host: &'a str, dev: Option<(usize, &'a str)>) -> Values<'a> {
        Values {
            host,
            device_index: dev.map(|d| d.0),
            device_name: dev.map(|d| d.1),
        }
    }

    #[test]
    fn expands_host_and_device() {
        let got = expand(
            Path::new("runs/{host}/{device}"),
            &v("gpu-07", Some((1, "NVIDIA H200"))),
        );
        assert_eq!(got.unwrap(), PathBuf::from("runs/gpu-07/device-1"));
        let got = expand(
            Path::new("r/{device_name}"),
            &v("h", Some((0, "llvmpipe (LLVM 15.0.6, 256 bits)"))),
        );
        assert_eq!(
            got.unwrap(),
            PathBuf::from("r/llvmpipe-LLVM-15.0.6-256-bits".to_lowercase())
        );
        assert_eq!(
            expand(Path::new("plain/dir"), &v("h", None)).unwrap(),
            PathBuf::from("plain/dir")
        );
    }

    #[test]
    fn values_cannot_change_the_path_shape() {
        for (host, want) in [
            ("../../etc", "..-..-etc"),
            ("..", "_"),
            ("a/b", "a-b"),
            ("", "_"),
        ] {
            assert_eq!(component(host), want, "{host}");
        }
        let got = expand(Path::new("runs/{host}"), &v("../x", None)).unwrap();
        assert_eq!(got, PathBuf::from("runs/..-x"));
    }

    #[test]
    fn mistakes_are_named() {
        let e = expand(Path::new("runs/{hots}"), &v("h", None)).unwrap_err();
        assert!(e.contains("{hots}") && e.contains("{host}"), "{e}");
        assert!(expand(Path::new("runs/{host"), &v("h", None)).is_err());
        let e = expand(Path::new("runs/{device}"), &v("h", None)).unwrap_err();
        assert!(e.contains("needs a device"), "{e}");
    }
}
