//! NumPy `.npy` files (through the npyz crate) and, re-exported from [`crate::scenario::png`],
//! 8-bit PNG images: what a scenario's `init = { file = ... }` reads, what `run --dump-outputs`
//! and command references write.
//! Contents travel as p3lab holds them everywhere else: tightly packed little-endian elements.
use crate::scenario::{Elem, ImageFormat, Resource, ResourceKind};
use std::io::{BufReader, BufWriter};
use std::path::Path;

pub use crate::scenario::png::{png_header, read_png};

/// What a file holds, read from its header only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The element type, if p3lab has one like it; else `Err(numpy's dtype string)`.
    pub elem: Result<Elem, String>,
    /// The array's dimensions, outermost first, as the header lists them (empty for a scalar).
    pub shape: Vec<u64>,
}

impl Header {
    /// Elements the file holds: the product of `shape` (1 for a scalar).
    pub fn count(&self) -> u64 {
        self.shape.iter().product()
    }

    /// `float32 (480, 640, 4)`: how messages show a file.
    pub fn describe(&self) -> String {
        let dtype = match &self.elem {
            Ok(e) => numpy_name(*e).to_string(),
            Err(s) => s.clone(),
        };
        let dims: Vec<String> = self.shape.iter().map(u64::to_string).collect();
        let comma = if dims.len() == 1 { "," } else { "" };
        format!("{dtype} ({}{comma})", dims.join(", "))
    }
}

/// numpy's name for an element type.
pub fn numpy_name(e: Elem) -> &'static str {
    match e {
        Elem::F32 => "float32",
        Elem::U32 => "uint32",
        Elem::I32 => "int32",
        Elem::F16 => "float16",
        Elem::U8 => "uint8",
    }
}

fn elem_of(type_str: &str) -> Result<Elem, String> {
    // Byte order aside ('<', '>', '|', '='): npyz converts big-endian data when reading.
    match type_str.trim_start_matches(['<', '>', '|', '=']) {
        "f4" => Ok(Elem::F32),
        "u4" => Ok(Elem::U32),
        "i4" => Ok(Elem::I32),
        "f2" => Ok(Elem::F16),
        "u1" => Ok(Elem::U8),
        _ => Err(format!("dtype '{type_str}'")),
    }
}

/// numpy refuses headers over 10 000 bytes by default (`max_header_size`); p3lab takes up to
/// this many, and refuses a larger claim before reading it (issue 30: a header length of 4 GiB
/// made the reader allocate 4 GiB and abort).
const MAX_HEADER_BYTES: usize = 1 << 20;

/// Check the header's length field, and name a dtype p3lab cannot take (object arrays, which
/// numpy pickles) before the reader sees it.
fn precheck(path: &Path) -> Result<(), String> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    let mut head = [0u8; 12];
    let n = f
        .read(&mut head)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if n < 10 || &head[..6] != b"\x93NUMPY" {
        return Ok(()); // npyz says what is wrong
    }
    let (len, start) = match head[6] {
        1 => (u16::from_le_bytes([head[8], head[9]]) as usize, 10),
        _ if n >= 12 => (
            u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as usize,
            12,
        ),
        _ => return Ok(()),
    };
    if len > MAX_HEADER_BYTES {
        return Err(format!(
            "not a NumPy .npy file p3lab takes: its header claims {len} bytes (numpy writes a few hundred; p3lab reads at most {MAX_HEADER_BYTES})"
        ));
    }
    let mut text = vec![0u8; len];
    let mut f = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    let mut skip = vec![0u8; start];
    if f.read_exact(&mut skip).is_err() || f.read_exact(&mut text).is_err() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&text);
    if let Some(i) = text.find("'descr'") {
        let rest = &text[i + 7..];
        let descr: String = rest
            .chars()
            .skip_while(|c| *c != '\'')
            .skip(1)
            .take_while(|c| *c != '\'')
            .collect();
        if descr
            .trim_start_matches(['<', '>', '|', '='])
            .starts_with('O')
        {
            return Err(format!(
                "it holds dtype '{descr}' (Python objects, saved with pickle): p3lab reads numeric arrays only (float32, float16, int32, uint32, uint8)"
            ));
        }
    }
    // Checked before the reader multiplies it out: a shape whose element count wraps in 64
    // bits must not pass for a small one (issue 30: (2^62 + 256, 4) over 4096 bytes wrapped
    // to exactly 1024 elements).
    if let Some(i) = text.find("'shape'") {
        let rest = &text[i + 7..];
        if let (Some(a), Some(b)) = (rest.find('('), rest.find(')')) {
            if a < b {
                let dims: Vec<&str> = rest[a + 1..b]
                    .split(',')
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .collect();
                let parsed: Option<Vec<u64>> = dims
                    .iter()
                    .map(|d| d.trim_end_matches('L').parse::<u64>().ok())
                    .collect();
                // A shape that does not parse is the reader's to report.
                let wraps = parsed.is_some_and(|v| {
                    v.iter()
                        .try_fold(8u64, |acc, &d| acc.checked_mul(d))
                        .is_none()
                });
                if wraps {
                    return Err(format!(
                        "its shape ({}) holds more elements than 64 bits can count",
                        dims.join(", ")
                    ));
                }
            }
        }
    }
    Ok(())
}

fn open(path: &Path) -> Result<npyz::NpyFile<BufReader<std::fs::File>>, String> {
    precheck(path)?;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    let npy = npyz::NpyFile::new(BufReader::new(file))
        .map_err(|e| format!("not a NumPy .npy file ({e})"))?;
    if npy.order() == npyz::Order::Fortran {
        return Err(
            "it is in Fortran order; save it with np.save(path, np.ascontiguousarray(a))".into(),
        );
    }
    Ok(npy)
}

/// The header of a `.npy` file (its data is not read).
pub fn read_header(path: &Path) -> Result<Header, String> {
    let npy = open(path)?;
    let elem = match npy.dtype() {
        npyz::DType::Plain(t) => elem_of(&t.to_string()),
        other => Err(format!("a structured dtype ({})", other.descr())),
    };
    let shape = npy.shape().to_vec();
    // Checked: a shape whose element count wraps in 64 bits must not pass for a small one
    // (issue 30: (2^62 + 256, 4) over 4096 bytes wrapped to exactly 1024 elements).
    let fits = shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .and_then(|n| n.checked_mul(8));
    if fits.is_none() {
        let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
        return Err(format!(
            "its shape ({}) holds more elements than 64 bits can count",
            dims.join(", ")
        ));
    }
    Ok(Header { elem, shape })
}

/// A `.npy` file's header and data, packed little-endian.
pub fn read(path: &Path) -> Result<(Header, Vec<u8>), String> {
    let header = read_header(path)?;
    let npy = open(path)?;
    let bad = |e: std::io::Error| format!("cannot read its data: {e}");
    let bytes: Vec<u8> = match &header.elem {
        Ok(Elem::F32) => le(npy.into_vec::<f32>().map_err(bad)?, f32::to_le_bytes),
        Ok(Elem::U32) => le(npy.into_vec::<u32>().map_err(bad)?, u32::to_le_bytes),
        Ok(Elem::I32) => le(npy.into_vec::<i32>().map_err(bad)?, i32::to_le_bytes),
        Ok(Elem::F16) => le(
            npy.into_vec::<half::f16>().map_err(bad)?,
            half::f16::to_le_bytes,
        ),
        Ok(Elem::U8) => npy.into_vec::<u8>().map_err(bad)?,
        Err(s) => return Err(format!("p3lab cannot take {s}")),
    };
    Ok((header, bytes))
}

fn le<T: Copy, const N: usize>(v: Vec<T>, f: fn(T) -> [u8; N]) -> Vec<u8> {
    v.into_iter().flat_map(f).collect()
}

/// Write packed little-endian `bytes` of `elem` as a `.npy` array of `shape` (C order).
pub fn write(path: &Path, elem: Elem, shape: &[u64], bytes: &[u8]) -> std::io::Result<()> {
    use npyz::WriterBuilder;
    let count: u64 = shape.iter().product();
    if count * elem.bytes() != bytes.len() as u64 {
        return Err(std::io::Error::other(format!(
            "{} bytes are not {count} elements of {}",
            bytes.len(),
            numpy_name(elem)
        )));
    }
    let file = BufWriter::new(std::fs::File::create(path)?);
    macro_rules! put {
        ($t:ty, $n:expr) => {{
            let mut w = npyz::WriteOptions::<$t>::new()
                .default_dtype()
                .shape(shape)
                .writer(file)
                .begin_nd()?;
            w.extend(
                bytes
                    .chunks_exact($n)
                    .map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk size"))),
            )?;
            w.finish()
        }};
    }
    match elem {
        Elem::F32 => put!(f32, 4),
        Elem::U32 => put!(u32, 4),
        Elem::I32 => put!(i32, 4),
        Elem::F16 => put!(half::f16, 2),
        Elem::U8 => put!(u8, 1),
    }
}

/// The shape p3lab gives an image of `format`: (height, width, channels), or (height, width)
/// for one channel.
pub fn image_shape(format: ImageFormat, width: u32, height: u32) -> Vec<u64> {
    let channels = format.texel_bytes() as u64 / format.element().bytes();
    if channels == 1 {
        vec![height as u64, width as u64]
    } else {
        vec![height as u64, width as u64, channels]
    }
}

/// Does a file's shape fit an image: (H, W, C), or (H, W) / (H, W, 1) for one channel.
pub fn fits_image(shape: &[u64], format: ImageFormat, width: u32, height: u32) -> bool {
    let want = image_shape(format, width, height);
    shape == want.as_slice() || (want.len() == 2 && shape == [want[0], want[1], 1])
}

/// Does a `.npy` header fit a resource (dtype, count; shape for images)? Else what would.
pub fn fits(r: &Resource, h: &Header) -> Result<(), String> {
    let elem = r.element();
    let want = match r.kind {
        ResourceKind::Uniform { bytes } => {
            let n = bytes / 4;
            (h.elem == Ok(elem) && h.count() == n)
                .then_some(())
                .ok_or(format!("{} x {n} (any shape)", numpy_name(elem)))
        }
        ResourceKind::Buffer { element, bytes } => {
            let n = bytes / element.bytes();
            (h.elem == Ok(elem) && h.count() == n)
                .then_some(())
                .ok_or(format!("{} x {n} (any shape)", numpy_name(elem)))
        }
        ResourceKind::Image {
            format,
            width,
            height,
            ..
        } => (h.elem == Ok(elem) && fits_image(&h.shape, format, width, height))
            .then_some(())
            .ok_or_else(|| {
                let dims: Vec<String> = image_shape(format, width, height)
                    .iter()
                    .map(u64::to_string)
                    .collect();
                format!("{} ({})", numpy_name(elem), dims.join(", "))
            }),
    };
    want
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn every_element_type_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        for (elem, bytes) in [
            (
                Elem::F32,
                crate::scenario::data::from_f32(&[1.5, -2.0, 3.25, 0.0, 7.0, 8.0]),
            ),
            (Elem::U32, (0u32..6).flat_map(u32::to_le_bytes).collect()),
            (Elem::I32, (-3i32..3).flat_map(i32::to_le_bytes).collect()),
            (
                Elem::F16,
                [0.5f32, 1.0, -1.0, 2.0, 4.0, 8.0]
                    .iter()
                    .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
                    .collect(),
            ),
            (Elem::U8, vec![0, 1, 2, 253, 254, 255]),
        ] {
            let p = dir.path().join(format!("{}.npy", numpy_name(elem)));
            write(&p, elem, &[2, 3], &bytes).unwrap();
            let (h, back) = read(&p).unwrap();
            assert_eq!(h.elem, Ok(elem));
            assert_eq!(h.shape, vec![2, 3]);
            assert_eq!(back, bytes, "{elem:?}");
        }
        let p = dir.path().join("bad.npy");
        assert!(write(&p, Elem::F32, &[3], &[0u8; 8]).is_err());
    }

    #[test]
    fn headers_describe_like_numpy() {
        let h = Header {
            elem: Ok(Elem::F32),
            shape: vec![480, 640, 4],
        };
        assert_eq!(h.describe(), "float32 (480, 640, 4)");
        let h = Header {
            elem: Err("dtype '<f8'".into()),
            shape: vec![7],
        };
        assert_eq!(h.describe(), "dtype '<f8' (7,)");
        assert_eq!(
            image_shape(ImageFormat::Rgba16f, 640, 480),
            vec![480, 640, 4]
        );
        assert_eq!(image_shape(ImageFormat::R32f, 640, 480), vec![480, 640]);
        assert!(fits_image(&[480, 640, 1], ImageFormat::R32f, 640, 480));
        assert!(!fits_image(&[640, 480, 4], ImageFormat::Rgba8, 640, 480));
    }

    fn raw_npy(dir: &Path, name: &str, version: u8, header: &str, data: &[u8]) -> PathBuf {
        let mut h = header.as_bytes().to_vec();
        let fixed = if version == 1 { 10 } else { 12 };
        while !(fixed + h.len() + 1).is_multiple_of(64) {
            h.push(b' ');
        }
        h.push(b'\n');
        let mut b = b"\x93NUMPY".to_vec();
        b.extend([version, 0]);
        if version == 1 {
            b.extend((h.len() as u16).to_le_bytes());
        } else {
            b.extend((h.len() as u32).to_le_bytes());
        }
        b.extend(&h);
        b.extend(data);
        let p = dir.join(name);
        std::fs::write(&p, b).unwrap();
        p
    }

    #[test]
    fn hostile_headers_are_refused_with_what_they_claim() {
        let d = tempfile::tempdir().unwrap();
        // A shape whose count wraps to exactly the data's 1024 float32s.
        let p = raw_npy(
            d.path(),
            "wrap.npy",
            1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427388160, 4), }",
            &[0u8; 4096],
        );
        let e = read_header(&p).unwrap_err();
        assert!(
            e.contains("4611686018427388160, 4") && e.contains("64 bits"),
            "{e}"
        );
        assert!(read(&p).is_err());
        // An object (pickled) array: the dtype is named.
        let p = raw_npy(
            d.path(),
            "obj.npy",
            1,
            "{'descr': '|O', 'fortran_order': False, 'shape': (3,), }",
            &[0u8; 24],
        );
        let e = read_header(&p).unwrap_err();
        assert!(e.contains("dtype '|O'") && e.contains("pickle"), "{e}");
        // A header length of 4 GiB: refused before anything that size is read or allocated.
        let mut b = b"\x93NUMPY".to_vec();
        b.extend([2u8, 0]);
        b.extend(0xFFFF_FFF0u32.to_le_bytes());
        b.extend(b"{'descr': '<f4'");
        let p = d.path().join("huge.npy");
        std::fs::write(&p, b).unwrap();
        let e = read_header(&p).unwrap_err();
        assert!(e.contains("4294967280 bytes"), "{e}");
    }
}
