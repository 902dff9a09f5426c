//! Tests of src/shader/compile.rs: wrapping, includes, errors, the cache.
use super::*;
use crate::shader::cache::SPIRV_MAGIC;
use crate::shader::includes::include_names;
#[test]
fn wrap_groups_renames_main_and_keeps_lines() {
    let src = "#version 450\n// c\nlayout(local_size_x = 1) in;\nvoid main() {\n  x;\n}\n";
    let w = wrap_groups(src);
    assert!(w.starts_with("#version 450\n#define main p3_user_main\n#line 2\n// c\n"));
    assert!(w.contains("void main() { p3_wrap_begin(); p3_user_main(); p3_wrap_end(); }"));
    // A shader that records its own (remapped) groups is left alone.
    let own = "#version 450\nvoid main() { p3_group_begin_at(uvec3(0)); }\n";
    assert_eq!(wrap_groups(own), own);
    // The line of an error in the wrapped shader is the line in the file.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.comp");
    std::fs::write(&f, src).unwrap();
    let common = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("glsl/common");
    let mut c = Compiler::new(None).unwrap();
    let mut req = request(f, vec![common]);
    req.defines.push(("P3_PROBE_GROUPS".into(), "1".into()));
    req.wrap_groups = true;
    match c.compile(&req) {
        Err(CompileError::Glsl { line, .. }) => assert_eq!(line, 5),
        other => panic!("expected a GLSL error, got {other:?}"),
    }
}

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/shader")
        .join(rel)
}

fn request(path: PathBuf, include_dirs: Vec<PathBuf>) -> CompileRequest {
    CompileRequest {
        wrap_groups: false,
        path,
        defines: vec![("SCALE".into(), "3.0".into())],
        include_dirs,
        opt: OptLevel::Performance,
        entry_point: "main".into(),
    }
}

#[test]
fn compiles_with_define_and_common_include() {
    let mut c = Compiler::new(None).unwrap();
    let req = request(data("scale.comp"), vec![data("common")]);
    let words = c.compile(&req).unwrap();
    assert_eq!(words[0], SPIRV_MAGIC);
    assert_eq!(words[1], 0x0001_0600, "SPIR-V 1.6");
    let s = c.stats();
    assert_eq!((s.compiles, s.cache_hits, s.errors), (1, 0, 0));
    assert!(s.compile_ns > 0);

    // Same request again in one process: served from memory.
    let again = c.compile(&req).unwrap();
    assert!(Arc::ptr_eq(&words, &again));
    assert_eq!(c.stats().cache_hits, 1);
    assert_eq!(c.stats().compiles, 1);
}

#[test]
fn missing_define_is_a_glsl_error() {
    let mut c = Compiler::new(None).unwrap();
    let mut req = request(data("scale.comp"), vec![data("common")]);
    req.defines.clear();
    let err = c.compile(&req).unwrap_err();
    assert!(matches!(err, CompileError::Glsl { .. }), "{err}");
    assert_eq!(c.stats().errors, 1);
}

#[test]
fn syntax_error_reports_file_and_line() {
    let mut c = Compiler::new(None).unwrap();
    let path = data("syntax_error.comp");
    let err = c.compile(&request(path.clone(), vec![])).unwrap_err();
    let CompileError::Glsl {
        file,
        line,
        message,
        log,
    } = &err
    else {
        panic!("expected Glsl error, got {err:?}");
    };
    assert_eq!(file, &path.to_string_lossy());
    assert_eq!(*line, 7, "log: {log}");
    assert!(message.starts_with("error: "), "{message}");
    assert!(message.contains("undeclared_thing"), "{message}");
    assert!(err
        .to_string()
        .starts_with(&format!("{}:7: error: ", path.display())));
}

#[test]
fn missing_include_names_including_file_and_line() {
    let mut c = Compiler::new(None).unwrap();
    let path = data("missing_include.comp");
    let err = c
        .compile(&request(path.clone(), vec![data("common")]))
        .unwrap_err();
    let CompileError::Glsl {
        file,
        line,
        message,
        log,
    } = &err
    else {
        panic!("expected Glsl error, got {err:?}");
    };
    assert_eq!(file, &path.to_string_lossy());
    assert_eq!(*line, 3, "log: {log}");
    assert!(message.contains("does_not_exist.glsl"), "{message}");
}

#[test]
fn unreadable_source_is_io_error() {
    let mut c = Compiler::new(None).unwrap();
    let err = c
        .compile(&request(data("no_such_file.comp"), vec![]))
        .unwrap_err();
    assert!(matches!(err, CompileError::Io { .. }), "{err}");
}

#[test]
fn line_zero_display_omits_line() {
    let e = glsl_error("a.comp", 0, "error: boom".into(), String::new());
    assert_eq!(e.to_string(), "a.comp: error: boom");
    let e = glsl_error("a.comp", 4, "error: boom".into(), String::new());
    assert_eq!(e.to_string(), "a.comp:4: error: boom");
}

#[test]
fn include_scan_parses_both_forms() {
    let names = include_names("#include \"a.glsl\"\n  #  include <b/c.glsl>\n// #include \"x\"\n");
    assert_eq!(names, vec!["a.glsl".to_string(), "b/c.glsl".to_string()]);
}

/// Copies the include-using shader into a temp dir so tests can edit its include.
fn scratch() -> (tempfile::TempDir, CompileRequest) {
    let tmp = tempfile::tempdir().unwrap();
    let common = tmp.path().join("common");
    std::fs::create_dir_all(&common).unwrap();
    std::fs::copy(data("scale.comp"), tmp.path().join("scale.comp")).unwrap();
    std::fs::copy(data("common/util.glsl"), common.join("util.glsl")).unwrap();
    let req = request(tmp.path().join("scale.comp"), vec![common]);
    (tmp, req)
}

#[test]
fn disk_cache_hit_across_compilers() {
    let (tmp, req) = scratch();
    let cache = tmp.path().join("cache");
    let first = Compiler::new(Some(cache.clone()))
        .unwrap()
        .compile(&req)
        .unwrap();
    let spv: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(spv.len(), 1, "exactly one file, no temp left: {spv:?}");
    assert_eq!(spv[0].extension().unwrap(), "spv");

    let mut second = Compiler::new(Some(cache)).unwrap();
    let words = second.compile(&req).unwrap();
    assert_eq!(words, first);
    let s = second.stats();
    assert_eq!((s.compiles, s.cache_hits, s.compile_ns), (0, 1, 0));
}

#[test]
fn changed_include_or_define_misses() {
    let (tmp, mut req) = scratch();
    let cache = tmp.path().join("cache");
    Compiler::new(Some(cache.clone()))
        .unwrap()
        .compile(&req)
        .unwrap();

    let util = tmp.path().join("common/util.glsl");
    let text = std::fs::read_to_string(&util).unwrap();
    std::fs::write(&util, format!("{text}\n// edited\n")).unwrap();
    let mut c = Compiler::new(Some(cache.clone())).unwrap();
    c.compile(&req).unwrap();
    assert_eq!((c.stats().compiles, c.stats().cache_hits), (1, 0));

    req.defines[0].1 = "4.0".into();
    c.compile(&req).unwrap();
    assert_eq!((c.stats().compiles, c.stats().cache_hits), (2, 0));
    req.opt = OptLevel::Zero;
    c.compile(&req).unwrap();
    assert_eq!((c.stats().compiles, c.stats().cache_hits), (3, 0));
}

#[test]
fn corrupt_cache_file_recompiles_and_overwrites() {
    let (tmp, req) = scratch();
    let cache = tmp.path().join("cache");
    let good = Compiler::new(Some(cache.clone()))
        .unwrap()
        .compile(&req)
        .unwrap();
    let file = std::fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();

    // Besides garbage: the whole file with one byte of the module flipped (a constant's
    // value, say: the module stays structurally whole), and the module without its hash.
    let whole = std::fs::read(&file).unwrap();
    let mut flipped = whole.clone();
    let mid = (whole.len() - 40) / 2 / 4 * 4 + 1;
    flipped[mid] ^= 0x40;
    let bare = whole[..whole.len() - 40].to_vec();
    for corrupt in [vec![1u8, 2, 3, 4, 5, 6], vec![0u8; 64], flipped, bare] {
        std::fs::write(&file, corrupt).unwrap();
        let mut c = Compiler::new(Some(cache.clone())).unwrap();
        assert_eq!(c.compile(&req).unwrap(), good);
        assert_eq!((c.stats().compiles, c.stats().cache_hits), (1, 0));
        assert_eq!(read_cached(&file).as_deref(), Some(&good[..]));
    }
}

#[test]
fn default_cache_dir_ends_in_spirv_or_is_overridden() {
    let d = default_cache_dir();
    if std::env::var_os("P3LAB_CACHE_DIR").is_none() {
        assert!(d.ends_with("spirv"), "{}", d.display());
    }
}

#[test]
fn compiler_version_is_stable() {
    let a = Compiler::new(None).unwrap().compiler_version();
    let b = Compiler::new(None).unwrap().compiler_version();
    assert_eq!(a, b);
    assert!(a.contains("spirv 1.6"), "{a}");
}
