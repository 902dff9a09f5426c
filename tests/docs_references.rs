//! docs/scenarios.md's table of built-in references says what src/scenario/refs declares: every
//! built-in has a row whose params, resources and outputs are the declared ones.
#[test]
fn the_documented_references_are_the_declared_ones() {
    let doc = std::fs::read_to_string("docs/scenarios.md").unwrap();
    for b in p3lab::scenario::refs::builtins() {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", b.name)))
            .unwrap_or_else(|| panic!("docs/scenarios.md has no row for `{}`", b.name));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (params, resources, gives) = (cells[2], cells[3], cells[4]);
        for p in b.params {
            assert!(
                params.contains(&format!("`{p}`")),
                "`{}`: param `{p}` in {row}",
                b.name
            );
        }
        if b.params.is_empty() {
            assert_eq!(params, "–", "`{}` needs no params: {row}", b.name);
        }
        for (name, kind) in b.resources {
            assert!(
                resources.contains(&format!("{kind} `{name}`")),
                "`{}`: `{kind} `{name}`` in {row}",
                b.name
            );
        }
        for o in b.outputs {
            assert!(
                gives.contains(&format!("`{o}`")),
                "`{}`: output `{o}` in {row}",
                b.name
            );
        }
    }
}
