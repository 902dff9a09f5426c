//! 8-bit RGBA/RGB PNG images for `rgba8` images (`init = { file = "x.png" }`), decoded as
//! RGBA8 up to a size that follows the host's memory.
use std::io::BufReader;
use std::path::Path;

/// The most bytes p3lab decodes from one PNG (its pixels as RGBA8), checked against what the
/// file claims before anything is decoded: half the host memory available now (the pixels and
/// the copy that goes to the device both live in it; issue 40: a fixed 64 MiB refused an 8K
/// texture), at least 64 MiB; 4 GiB where the host does not say.
fn png_max_bytes() -> u64 {
    const FLOOR: u64 = 64 << 20;
    host_available_bytes().map_or(4 << 30, |b| (b / 2).max(FLOOR))
}

/// The host memory available to new allocations (`MemAvailable` in /proc/meminfo); None where
/// there is no such file.
fn host_available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The width and height a file's PNG header (IHDR) claims; None when it does not start as a
/// PNG does.
fn png_claimed_size(path: &Path) -> Option<(u32, u32)> {
    use std::io::Read;
    let mut head = [0u8; 24];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    let be = |i: usize| u32::from_be_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    (head[..8] == *b"\x89PNG\r\n\x1a\n" && head[12..16] == *b"IHDR").then(|| (be(16), be(20)))
}

/// A PNG that claims more pixels than p3lab decodes: the message names the claimed size.
fn png_too_large(w: u32, h: u32) -> Option<String> {
    let bytes = u128::from(w) * u128::from(h) * 4;
    let max = png_max_bytes();
    (bytes > u128::from(max)).then(|| {
        format!(
            "a PNG claiming {w} x {h} pixels ({bytes} bytes as RGBA8); p3lab decodes PNGs of up \
             to half the host's available memory ({} MiB now)",
            max >> 20
        )
    })
}

/// A png crate error as a message; a PNG over the size limit names the size it claims.
fn png_error(e: &png::DecodingError, claimed: Option<(u32, u32)>) -> String {
    match (e, claimed) {
        (png::DecodingError::LimitsExceeded, Some((w, h))) => {
            png_too_large(w, h).unwrap_or_else(|| {
                format!("a PNG claiming {w} x {h} pixels: too large to decode ({e})")
            })
        }
        _ => format!("not a PNG file ({e})"),
    }
}

/// A decoder with p3lab's size limit.
fn png_decoder(path: &Path) -> Result<png::Decoder<BufReader<std::fs::File>>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    let limits = png::Limits {
        bytes: usize::try_from(png_max_bytes()).unwrap_or(usize::MAX),
    };
    Ok(png::Decoder::new_with_limits(BufReader::new(file), limits))
}

/// A PNG's width, height and whether p3lab can read it (8-bit RGBA or RGB). A PNG claiming
/// more pixels than p3lab decodes is refused before decoding, naming the claimed size.
pub fn png_header(path: &Path) -> Result<(u32, u32), String> {
    let claimed = png_claimed_size(path);
    if let Some(too_large) = claimed.and_then(|(w, h)| png_too_large(w, h)) {
        return Err(too_large);
    }
    let reader = png_decoder(path)?
        .read_info()
        .map_err(|e| png_error(&e, claimed))?;
    let info = reader.info();
    if info.bit_depth != png::BitDepth::Eight
        || !matches!(info.color_type, png::ColorType::Rgba | png::ColorType::Rgb)
    {
        return Err(format!(
            "a {:?} {:?}-bit PNG; p3lab reads 8-bit RGBA or RGB PNGs (for rgba8 images)",
            info.color_type, info.bit_depth as u8
        ));
    }
    Ok((info.width, info.height))
}

/// A PNG's pixels as RGBA8, row-major (RGB gets alpha 255).
pub fn read_png(path: &Path) -> Result<Vec<u8>, String> {
    let claimed = Some(png_header(path)?);
    let mut reader = png_decoder(path)?
        .read_info()
        .map_err(|e| png_error(&e, claimed))?;
    let mut buf = vec![0u8; reader.output_buffer_size()];
    let frame = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("cannot decode it: {e}"))?;
    buf.truncate(frame.buffer_size());
    Ok(match frame.color_type {
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        _ => buf,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The CRC-32 of a PNG chunk (its type and data).
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    (c >> 1) ^ 0xEDB8_8320
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    /// A PNG signature and a valid IHDR chunk claiming `w` x `h` 8-bit RGBA pixels, then
    /// nothing.
    fn png_claiming(dir: &Path, w: u32, h: u32) -> PathBuf {
        let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
        b.extend(13u32.to_be_bytes());
        let mut chunk = b"IHDR".to_vec();
        chunk.extend(w.to_be_bytes());
        chunk.extend(h.to_be_bytes());
        chunk.extend([8, 6, 0, 0, 0]);
        b.extend(&chunk);
        b.extend(crc32(&chunk).to_be_bytes());
        let p = dir.join(format!("claims-{w}x{h}.png"));
        std::fs::write(&p, b).unwrap();
        p
    }

    /// Issue 40: an 8K texture (8192 x 8192, 256 MiB as RGBA8) was refused by a fixed 64 MiB
    /// limit; it decodes whole (where the host has the memory for it).
    #[test]
    fn an_8k_png_decodes() {
        const SIDE: u32 = 8192;
        if u64::from(SIDE) * u64::from(SIDE) * 4 > png_max_bytes() {
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("8k.png");
        let f = std::fs::File::create(&p).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(f), SIDE, SIDE);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().unwrap();
        let mut row = vec![0u8; SIDE as usize * 4];
        row[..4].copy_from_slice(&[1, 2, 3, 4]);
        let rows: Vec<u8> = (0..SIDE).flat_map(|_| row.iter().copied()).collect();
        w.write_image_data(&rows).unwrap();
        w.finish().unwrap();
        assert_eq!(png_header(&p).unwrap(), (SIDE, SIDE));
        let px = read_png(&p).unwrap();
        assert_eq!(px.len(), (SIDE * SIDE * 4) as usize);
        assert_eq!(&px[..4], &[1, 2, 3, 4]);
    }

    #[test]
    fn a_png_claiming_a_huge_size_is_refused_naming_it() {
        let d = tempfile::tempdir().unwrap();
        for (w, h) in [(2147483647, 2147483647), (u32::MAX, u32::MAX)] {
            let p = png_claiming(d.path(), w, h);
            for e in [png_header(&p).unwrap_err(), read_png(&p).unwrap_err()] {
                assert!(
                    e.contains(&format!("claiming {w} x {h} pixels"))
                        && e.contains("half the host's available memory"),
                    "{e}"
                );
            }
        }
        // A real PNG reads.
        let p = d.path().join("ok.png");
        let f = std::fs::File::create(&p).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(f), 2, 1);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.write_header()
            .unwrap()
            .write_image_data(&[1, 2, 3, 4, 5, 6])
            .unwrap();
        assert_eq!(png_header(&p).unwrap(), (2, 1));
        assert_eq!(read_png(&p).unwrap(), vec![1, 2, 3, 255, 4, 5, 6, 255]);
        // Neither 4096 x 4096 nor an 8K texture (8192 x 8192, 256 MiB as RGBA8; issue 40) is
        // refused for its size (these for their missing pixel data).
        for (w, h) in [(4096, 4096), (4097, 4096), (8192, 8192)] {
            if u64::from(w) * u64::from(h) * 4 > png_max_bytes() {
                // A host with under 512 MiB available refuses the 8K one, rightly.
                continue;
            }
            let e = png_header(&png_claiming(d.path(), w, h)).unwrap_err();
            assert!(!e.contains("claiming"), "{w} x {h}: {e}");
        }
    }
}
