//! The preflight: every variant a run would run, prepared before anything runs, so that a
//! scenario mistake stops the run (exit 2) naming file, line and key.
use super::*;

/// Prepare every variant the run would run, before anything runs. Scenario mistakes (a shader
/// that does not compile, bindings, workgroup sizes, push or spec constants that do not match
/// the shader) come back as errors naming file, line and key; so do this device's limits
/// (`unsupported`) when `strict`. Identical errors of several params cases are given once.
pub fn preflight(
    ctx: &Context,
    compiler: &mut Compiler,
    opts: &RunOptions,
    scenarios: &[Scenario],
    strict: bool,
) -> Vec<ScenarioError> {
    let mut errors: Vec<ScenarioError> = Vec::new();
    // Compile errors by (scenario location, compiler's message): the variants each affects.
    let mut compile: Vec<(ScenarioError, Vec<(String, String)>)> = Vec::new();
    for sc in scenarios {
        let loc = Locator::new(&sc.path, &sc.text);
        for case in &sc.cases {
            if strict {
                let max = ctx.info.max_storage_buffer_range as u64;
                for r in &case.resources {
                    if matches!(r.kind, ResourceKind::Buffer { .. }) && r.bytes() > max {
                        let mut key = r.key.clone();
                        key.push(Seg::Key("count".into()));
                        let e = loc.err(
                            &key,
                            format!(
                                "buffer `{}` is {} bytes, over this device's maxStorageBufferRange ({max}) (params {})",
                                r.name,
                                r.bytes(),
                                case.params_label
                            ),
                        );
                        if !errors.contains(&e) {
                            errors.push(e);
                        }
                    }
                }
            }
            // A reference of the user's own (a command) runs now, on this case's inputs: a
            // command that fails, times out or writes the wrong shape is a scenario mistake.
            // Its answers are cached, so the run reads them back instead of running it again.
            let runs_command = matches!(
                case.check.as_ref().and_then(|c| c.reference.as_ref()),
                Some(crate::scenario::Reference::Command { .. })
            );
            let any_selected = case.variants.iter().any(|v| opts.filter_matches(sc, v));
            if runs_command && any_selected {
                let limits = crate::measure::inputs::Limits::of(&ctx.info);
                let made = crate::measure::inputs::make(case, limits);
                if let Some(Err(m)) = made.reference {
                    let e = loc.err(
                        &[Seg::Key("check".into()), Seg::Key("reference".into())],
                        format!("{m} (params {})", case.params_label),
                    );
                    if !errors.contains(&e) {
                        errors.push(e);
                    }
                }
            }
            let baseline = case.check.as_ref().and_then(|c| c.baseline.as_ref());
            for v in &case.variants {
                // The check's baseline runs even when the filter leaves it out.
                if !opts.filter_matches(sc, v) && Some(&v.name) != baseline {
                    continue;
                }
                let Err(f) = prepare(ctx, compiler, opts, (sc, case, v)) else {
                    continue;
                };
                if f.status == RowStatus::Unsupported && !strict {
                    continue;
                }
                let key = f.key.clone().unwrap_or_else(|| v.key.clone());
                if f.status == RowStatus::CompileError {
                    // Said once for every variant it affects (below).
                    let (what, defines) = crate::results::split_defines(&f.reason);
                    let at = loc.err(&key, what);
                    let variant = (v.name.clone(), defines.to_string());
                    match compile.iter_mut().find(|(e, _)| *e == at) {
                        Some((_, vs)) => {
                            if !vs.iter().any(|(n, _)| *n == v.name) {
                                vs.push(variant);
                            }
                        }
                        None => compile.push((at, vec![variant])),
                    }
                    continue;
                }
                let e = loc.err(&key, format!("variant `{}`: {}", v.name, f.reason));
                if !errors.contains(&e) {
                    errors.push(e);
                }
            }
        }
    }
    let mut once: Vec<ScenarioError> = compile
        .into_iter()
        .map(|(at, variants)| compile_error_once(at, &variants))
        .collect();
    once.extend(errors);
    once
}

/// One compile error for every variant it affects (issue 41), starting with the shader's own
/// `file:line` (the compiler's message), then the variants with their defines and the
/// scenario's key that names the shader: `bad.comp:5: error: … ⏎ in variants `wg32`,
/// `wg64` (defines WG=32; WG=64), from bad.toml:3: key `scenario.shader`: the shader`.
fn compile_error_once(at: ScenarioError, variants: &[(String, String)]) -> ScenarioError {
    let names: Vec<String> = variants.iter().map(|(n, _)| format!("`{n}`")).collect();
    let defines: Vec<&str> = variants
        .iter()
        .map(|(_, d)| d.as_str())
        .filter(|d| !d.is_empty())
        .collect();
    let which = format!(
        "in variant{} {}{}, from {}:{}: key `{}`: the shader",
        if names.len() == 1 { "" } else { "s" },
        names.join(", "),
        if defines.is_empty() {
            String::new()
        } else {
            format!(" (defines {})", defines.join("; "))
        },
        at.file,
        at.line,
        at.key
    );
    // The compiler's message names the shader as `file:LINE: …`: that goes first.
    let shader = at.message.match_indices(':').find_map(|(i, _)| {
        let rest = &at.message[i + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let line = rest[..digits].parse::<usize>().ok()?;
        let text = rest[digits..].strip_prefix(": ")?;
        Some((at.message[..i].to_string(), line, text.to_string()))
    });
    match shader {
        Some((file, line, text)) => ScenarioError {
            file,
            line,
            key: String::new(),
            message: format!("{text}\n  {which}"),
        },
        None => ScenarioError {
            file: at.message.clone(),
            line: 0,
            key: String::new(),
            message: which,
        },
    }
}
