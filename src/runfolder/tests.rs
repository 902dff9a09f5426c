//! Run folders of every shape: run.json and runs.json, plain and gzipped, old and odd.
use super::*;
use std::io::Write as _;

fn gz(path: &Path, text: &str) {
    let f = std::fs::File::create(path).unwrap();
    let mut e = flate2::write::GzEncoder::new(f, flate2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap();
}

const NEW: &str = r#"{"schema_version":2,"run_id":"r1","p3lab_version":"0.1.0",
  "git_revision":null,"command_line":["p3lab","run","a.toml"],"host":"h","complete":true,
  "resume_command_lines":[["p3lab","run","--resume","--out","o"]],"resumed":1,
  "peaks_file":"/nowhere/peaks.csv",
  "device":{"name":"NVIDIA H100 80GB HBM3","uuid":"ab","device_type":"discrete",
    "driver_name":"NVIDIA","driver_info":"580.159.04","driver_version":2432139264,
    "api_version":"1.4.312"},
  "rounds":[{"scenario":"s","params":"n=1","mode":"warm","order":[["a","b"],["b","a"]],
    "placement_order":["a","b"]}],
  "args":{"scenarios":["a.toml"],"set":[],"filter":[],"profile":null,"device":null}}"#;

#[test]
fn a_run_json_reads_typed_plain_or_gzipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(RUN_JSON), NEW).unwrap();
    let f = RunFolder::open(dir.path()).unwrap();
    let r = &f.runs[0].info;
    assert_eq!(r.run_id, "r1");
    assert_eq!(r.schema_version, Some(2));
    assert_eq!(r.git_revision, "");
    assert_eq!(r.command_line, ["p3lab", "run", "a.toml"]);
    assert_eq!(r.resumed, Some(1));
    assert_eq!(r.device.driver_version, "2432139264");
    assert_eq!(r.device.device_type, "discrete");
    assert_eq!(r.rounds[0].order[1], ["b", "a"]);
    assert_eq!(r.args.scenarios, ["a.toml"]);
    assert_eq!(r.complete, Some(true));
    assert_eq!(f.runs[0].raw, NEW.trim());
    assert_eq!(f.run("r1").unwrap().host, "h");
    assert_eq!(
        f.run("").unwrap().host,
        "h",
        "one run speaks for rows without an id"
    );
    assert!(f.run("r2").is_none());
    // The same, gzipped as committed reports keep it.
    let dir = tempfile::tempdir().unwrap();
    gz(&dir.path().join("run.json.gz"), NEW);
    let g = RunFolder::open(dir.path()).unwrap();
    assert_eq!(g.runs[0].info, f.runs[0].info);
    assert!(g.file.ends_with("run.json.gz"));
}

#[test]
fn older_and_odd_files_give_what_they_have() {
    // Schema 1: command_line one string, no device, no rounds; a hand-edited host number and
    // a rounds value that is not a list.
    let old = r#"{"run_id":"r0","command_line":"p3lab run x.toml","host":42,"rounds":7,
        "device":{"name":"llvmpipe","driver_version":"1"},"complete":"yes"}"#;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(RUN_JSON), old).unwrap();
    let r = RunFolder::open(dir.path()).unwrap().runs.remove(0).info;
    assert_eq!(r.command_line, ["p3lab run x.toml"]);
    assert_eq!(r.host, "42");
    assert!(r.rounds.is_empty());
    assert_eq!(r.device.name, "llvmpipe");
    assert_eq!(r.schema_version, None);
    assert_eq!(r.complete, None);
}

#[test]
fn a_merged_folder_keeps_each_run_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let two = format!("[\n{NEW},\n {{\"run_id\":\"r2\",\"x\":1.50}}\n]\n");
    std::fs::write(dir.path().join(RUNS_JSON), &two).unwrap();
    let f = RunFolder::open(dir.path()).unwrap();
    assert_eq!(f.runs.len(), 2);
    assert_eq!(f.runs[1].raw, "{\"run_id\":\"r2\",\"x\":1.50}");
    assert_eq!(f.run("r2").unwrap().run_id, "r2");
    assert!(f.run("").is_none(), "a merged folder's rows need their id");
}

#[test]
fn bad_folders_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let e = RunFolder::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("missing run.json"), "{e}");
    std::fs::write(dir.path().join(RUN_JSON), "[1]").unwrap();
    let e = RunFolder::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("a run must be a JSON object"), "{e}");
    std::fs::write(dir.path().join(RUN_JSON), "{").unwrap();
    let e = RunFolder::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("invalid JSON") && e.contains("run.json"), "{e}");
    std::fs::write(dir.path().join(RUNS_JSON), "[]").unwrap();
    let e = RunFolder::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("holds both"), "{e}");
    let e = RunFolder::open(&dir.path().join("nope"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a folder"), "{e}");
}

#[test]
fn json_arrays_split_without_reformatting() {
    let a =
        split_json_array("[\n{\"a\": 1.50, \"s\": \"x,]\\\"}\"},\n {\"b\": [1, 2]}\n]\n").unwrap();
    assert_eq!(
        a,
        vec!["{\"a\": 1.50, \"s\": \"x,]\\\"}\"}", "{\"b\": [1, 2]}"]
    );
    assert!(split_json_array("[]").unwrap().is_empty());
    assert!(split_json_array("{}").is_err());
    assert!(split_json_array("[1,,2]").is_err());
}
