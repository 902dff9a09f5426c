//! Every built-in reference declares what it needs (params, resources, outputs; src/scenario/refs), and
//! scenarios are checked against that when they load. This keeps the declarations honest: each
//! built-in runs on a bundled scenario that uses it, cut down to exactly what it declares. A
//! need it did not declare makes it fail here, not in a user's run.
use p3lab::scenario::refs::{builtins, run_reference, Contents};
use p3lab::scenario::{load, Init, Reference};

#[test]
fn every_builtin_runs_on_exactly_what_it_declares() {
    let mut files: Vec<_> = ["scenarios", "peaks"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let loaded: Vec<_> = files
        .iter()
        .map(|f| load(f, &Default::default()).unwrap())
        .collect();
    let mut covered = Vec::new();
    for b in builtins() {
        // The bundled scenario that uses it, at its small (lavapipe) sizes.
        let Some(sc) = loaded.iter().find(|sc| {
            sc.cases[0]
                .check
                .as_ref()
                .and_then(|c| c.reference.as_ref())
                == Some(&Reference::Builtin(b.name.to_string()))
        }) else {
            panic!("no bundled scenario uses built-in reference `{}`", b.name);
        };
        let mut case = sc.cases[0].clone();
        case.params.retain(|k, _| b.params.contains(&k.as_str()));
        case.resources.retain(|r| {
            b.resources.iter().any(|(n, _)| match n.strip_suffix('*') {
                Some(prefix) => r.name.starts_with(prefix),
                None => r.name == *n,
            })
        });
        let inputs: Contents = case
            .resources
            .iter()
            .map(|r| {
                let bytes = if r.init == Init::Zero {
                    vec![0u8; r.bytes() as usize]
                } else {
                    p3lab::scenario::data::init_bytes(r).unwrap()
                };
                (r.name.clone(), bytes)
            })
            .collect();
        let out = run_reference(b.name, &case, &inputs).unwrap_or_else(|e| {
            panic!(
                "`{}` on {} cut down to its declared needs failed: {e}",
                b.name,
                sc.path.display()
            )
        });
        for k in out.keys() {
            assert!(
                b.outputs.contains(&k.as_str()),
                "`{}` gives undeclared `{k}`",
                b.name
            );
        }
        covered.push(b.name);
    }
    assert_eq!(covered.len(), builtins().len());
}
