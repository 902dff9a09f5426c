//! Files a scenario names besides its shaders: `init = { file = "frame.npy" }` (or a PNG for
//! rgba8 images), resolved against the scenario's folder, templated by params like variant
//! names, and checked when the scenario loads (type, element count, image shape), so a file
//! that cannot fit stops the run before anything is written.
use super::{template, Loader};
use crate::scenario::error::{ScenarioError, Seg};
use crate::scenario::expr::Vars;
use crate::scenario::npy;
use crate::scenario::types::{FileFormat, ImageFormat, Init, ResourceKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

impl Loader<'_> {
    /// A path written in the scenario (templated by params), resolved against its folder; it
    /// must be a regular file.
    pub(super) fn scenario_file(
        &self,
        key: &[Seg],
        written: &str,
        vars: &Vars,
    ) -> Result<PathBuf, ScenarioError> {
        let rel = template(written, vars, &BTreeMap::new()).map_err(|m| self.err(key, m))?;
        let base = self.path.parent().unwrap_or(Path::new(""));
        let path = base.join(&rel);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => Ok(path),
            Ok(_) => Err(self.err(key, format!("`{}` is not a regular file", path.display()))),
            Err(e) => Err(self.err(
                key,
                format!(
                    "`{}` (relative to the scenario's folder): {}",
                    path.display(),
                    if e.kind() == std::io::ErrorKind::NotFound {
                        "no such file".to_string()
                    } else {
                        e.to_string()
                    }
                ),
            )),
        }
    }

    /// `init = { file = "..." }` for `kind`: the file's type and size must fit the resource.
    pub(super) fn init_file(
        &self,
        p: &[Seg],
        t: &toml::value::Table,
        kind: &ResourceKind,
        vars: &Vars,
    ) -> Result<Init, ScenarioError> {
        let mut key = p.to_vec();
        key.push(Seg::Key("file".into()));
        if let Some(extra) = t.keys().find(|k| *k != "file") {
            let mut k = p.to_vec();
            k.push(Seg::Key(extra.clone()));
            return Err(self.err(
                &k,
                format!("unknown key `{extra}` for a file init (it takes only `file`)"),
            ));
        }
        let written = t
            .get("file")
            .and_then(|v| v.as_str())
            .ok_or_else(|| self.err(&key, "`file` is a path in quotes"))?;
        let path = self.scenario_file(&key, written, vars)?;
        let shown = path.display();
        let is_png = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
        if is_png {
            let (w, h) =
                npy::png_header(&path).map_err(|m| self.err(&key, format!("{shown}: {m}")))?;
            return match kind {
                ResourceKind::Image {
                    format: ImageFormat::Rgba8,
                    width,
                    height,
                    ..
                } if (*width, *height) == (w, h) => Ok(Init::File {
                    path,
                    format: FileFormat::Png,
                }),
                ResourceKind::Image {
                    format: ImageFormat::Rgba8,
                    width,
                    height,
                    ..
                } => Err(self.err(
                    &key,
                    format!("{shown} is {w} x {h} pixels; the image is {width} x {height}"),
                )),
                _ => Err(self.err(
                    &key,
                    format!("{shown}: a PNG can fill only an rgba8 image; use a .npy file"),
                )),
            };
        }
        let header =
            npy::read_header(&path).map_err(|m| self.err(&key, format!("{shown}: {m}")))?;
        let want_elem = match kind {
            ResourceKind::Buffer { element, .. } => *element,
            ResourceKind::Uniform { .. } => {
                return Err(self.err(&key, "a uniform buffer is filled by its `members`"))
            }
            ResourceKind::Image { format, .. } => format.element(),
        };
        let mismatch = |want: String| {
            self.err(
                &key,
                format!(
                    "{shown} holds {}; the resource needs {want}",
                    header.describe()
                ),
            )
        };
        if header.elem != Ok(want_elem) {
            return Err(mismatch(format!("{} elements", npy::numpy_name(want_elem))));
        }
        match kind {
            ResourceKind::Uniform { .. } => {}
            ResourceKind::Buffer { element, bytes } => {
                let count = bytes / element.bytes();
                if header.count() != count {
                    return Err(mismatch(format!(
                        "{count} elements (`count`), in any shape"
                    )));
                }
            }
            ResourceKind::Image {
                format,
                width,
                height,
                ..
            } => {
                if !npy::fits_image(&header.shape, *format, *width, *height) {
                    let want = npy::image_shape(*format, *width, *height);
                    let dims: Vec<String> = want.iter().map(u64::to_string).collect();
                    return Err(mismatch(format!(
                        "shape ({}) for a {width} x {height} {} image",
                        dims.join(", "),
                        format_name(*format)
                    )));
                }
            }
        }
        Ok(Init::File {
            path,
            format: FileFormat::Npy,
        })
    }
}

fn format_name(f: ImageFormat) -> &'static str {
    match f {
        ImageFormat::Rgba32f => "rgba32f",
        ImageFormat::Rgba16f => "rgba16f",
        ImageFormat::R32f => "r32f",
        ImageFormat::Rgba8 => "rgba8",
        ImageFormat::R32ui => "r32ui",
    }
}
