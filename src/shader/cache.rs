//! The on-disk SPIR-V cache's files: each module followed by its SHA-256 and a tag, written
//! atomically, and read back only when the hash matches, the module is structurally whole and
//! SPIRV-Tools' validator accepts it, so a damaged entry never reaches the driver.
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub(super) const SPIRV_MAGIC: u32 = 0x0723_0203;

/// The end of a cache file: the SHA-256 of the SPIR-V before it, then this tag.
const CACHE_TAG: &[u8; 8] = b"P3LABSHA";

/// A cached module, only if its bytes match the hash stored with them (a flipped or cut byte
/// anywhere is caught, not only a cut at an instruction boundary) and it is structurally
/// whole. A file that fails is recompiled and overwritten; a hash mismatch is warned about,
/// naming the file.
pub(super) fn read_cached(path: &Path) -> Option<Vec<u32>> {
    let file = std::fs::read(path).ok()?;
    if file.len() < 32 + CACHE_TAG.len() || !file.ends_with(CACHE_TAG) {
        return None;
    }
    let (bytes, trailer) = file.split_at(file.len() - 32 - CACHE_TAG.len());
    if Sha256::digest(bytes).as_slice() != &trailer[..32] {
        tracing::warn!(
            "SPIR-V cache {}: its contents do not match their hash; recompiling",
            path.display()
        );
        return None;
    }
    if bytes.len() < 20 || bytes.len() % 4 != 0 {
        return None;
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words[0] != SPIRV_MAGIC || !structurally_whole(&words) {
        return None;
    }
    // A matching hash proves the file is what was written, not that it is a module a driver
    // can take (an entry written by hand, or by a broken writer, with its hash recomputed):
    // SPIRV-Tools' validator has the last word before the driver does.
    if let Err(e) = crate::vk::spirv_tools::validate(&words) {
        tracing::warn!(
            "SPIR-V cache {}: not a valid module ({e}); recompiling",
            path.display()
        );
        return None;
    }
    Some(words)
}

/// A cache file cut short (a full disk, a killed writer, a hand edit) must never reach the
/// driver: a module cut at an instruction boundary still parses, and crashed lavapipe. A whole
/// module's instructions fill it exactly, it ends with OpFunctionEnd, and every entry point
/// and every call names a function it defines.
pub(super) fn structurally_whole(words: &[u32]) -> bool {
    const OP_ENTRY_POINT: u32 = 15;
    const OP_FUNCTION: u32 = 54;
    const OP_FUNCTION_END: u32 = 56;
    const OP_FUNCTION_CALL: u32 = 57;
    let mut i = 5;
    let mut last = 0;
    let mut entry_points = Vec::new();
    let mut functions = std::collections::HashSet::new();
    let mut called = Vec::new();
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if len == 0 || i + len > words.len() {
            return false;
        }
        match op {
            OP_ENTRY_POINT if len >= 3 => entry_points.push(words[i + 2]),
            OP_FUNCTION if len >= 3 => {
                functions.insert(words[i + 2]);
            }
            OP_FUNCTION_CALL if len >= 4 => called.push(words[i + 3]),
            _ => {}
        }
        last = op;
        i += len;
    }
    last == OP_FUNCTION_END
        && !entry_points.is_empty()
        && entry_points
            .iter()
            .chain(&called)
            .all(|id| functions.contains(id))
}

/// Temp file + rename, so a concurrent reader sees either nothing or the whole module.
pub(super) fn write_atomically(path: &Path, words: &[u32]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let hash = Sha256::digest(&bytes);
    bytes.extend_from_slice(&hash);
    bytes.extend_from_slice(CACHE_TAG);
    let result = std::fs::write(&tmp, &bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A `.spv` file's words: little- or big-endian (the magic number tells), whole words only.
pub(super) fn spirv_words(bytes: &[u8]) -> Result<Vec<u32>, String> {
    if bytes.len() < 20 || !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "not a SPIR-V binary: {} bytes (a module is a whole number of 4-byte words, at least 5)",
            bytes.len()
        ));
    }
    let le: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if le[0] == SPIRV_MAGIC {
        return Ok(le);
    }
    if le[0].swap_bytes() == SPIRV_MAGIC {
        return Ok(le.into_iter().map(u32::swap_bytes).collect());
    }
    Err(format!(
        "not a SPIR-V binary: it starts with {:#010x}, not the magic number 0x07230203",
        le[0]
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cut_cache_file_is_never_used() {
        let mut c = crate::shader::Compiler::new(None).unwrap();
        let req = crate::shader::CompileRequest {
            path: "cut.comp".into(),
            defines: vec![],
            include_dirs: vec![],
            opt: crate::shader::OptLevel::Zero,
            entry_point: "main".into(),
            wrap_groups: false,
        };
        let src = "#version 450\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { float b[]; };\nfloat f(float x) { return x * 2.0; }\nvoid main() { b[0] = f(b[0]); }\n";
        let words = c.compile_text(&req, src.into()).unwrap();
        assert!(super::structurally_whole(&words));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.spv");
        let mut cuts = 0;
        for n in 5..words.len() {
            super::write_atomically(&path, &words[..n]).unwrap();
            assert!(
                super::read_cached(&path).is_none(),
                "cut at word {n} of {}",
                words.len()
            );
            cuts += 1;
        }
        assert!(cuts > 20);
        super::write_atomically(&path, &words).unwrap();
        assert_eq!(super::read_cached(&path).as_deref(), Some(words.as_slice()));
        // A whole, correctly hashed file whose module is invalid (its first OpReturn removed,
        // so a block has no terminator) is refused by the validator and recompiled.
        const OP_RETURN: u32 = (1 << 16) | 253;
        let at = words.iter().position(|&w| w == OP_RETURN).unwrap();
        let mut broken: Vec<u32> = words.to_vec();
        broken.remove(at);
        assert!(super::structurally_whole(&broken));
        super::write_atomically(&path, &broken).unwrap();
        assert!(super::read_cached(&path).is_none());
    }
}
