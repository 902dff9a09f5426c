use p3lab::scenario::*;
use std::path::Path;

fn e(text: &str) -> String {
    match parse(Path::new("t.toml"), text, &vec![]) {
        Ok(_) => "OK".into(),
        Err(e) => format!("{e}  || line={} key={:?}", e.line, e.key),
    }
}

const HEAD: &str =
    "[scenario]\nname = \"t\"\nshader = \"glsl/smoke/smoke.comp\"\n\n[params]\nn = 10\n\n";
const RES: &str = "[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\nelement = \"f32\"\ncount = \"n\"\noutput = true\n\n";
const DISP: &str = "[[dispatch]]\ngrid = [1, 1, 1]\n\n";
const VAR: &str = "[[variants]]\nname = \"v\"\nworkgroup = [64, 1, 1]\n";

#[test]
fn explore() {
    let cases: Vec<(&str, String)> = vec![
        ("ok", format!("{HEAD}{RES}{DISP}{VAR}")),
        ("malformed", format!("{HEAD}{RES}[[dispatch]]\ngrid = [1, 1\n\n{VAR}")),
        ("malformed2", format!("{HEAD}{RES}{DISP}{VAR}name = \n")),
        ("unknown top", format!("{HEAD}{RES}{DISP}{VAR}\n[bogus]\nx = 1\n")),
        ("unknown top key", format!("bogus = 1\n{HEAD}{RES}{DISP}{VAR}")),
        ("unknown scenario", format!("[scenario]\nname = \"t\"\nshadr = \"x\"\n{DISP}{VAR}")),
        ("unknown res", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncont = 4\n\n{DISP}{VAR}")),
        ("unknown res 2nd", format!("{HEAD}{RES}[[resources]]\nname = \"b\"\ntype = \"buffer\"\nbinding = 1\ncount = 4\nelemnt = \"f32\"\n\n{DISP}{VAR}")),
        ("unknown var", format!("{HEAD}{RES}{DISP}{VAR}wrkgroup = [1]\n")),
        ("unknown var 2nd", format!("{HEAD}{RES}{DISP}{VAR}\n[[variants]]\nname = \"w\"\ndefine = {{ A = 1 }}\n")),
        ("unknown dispatch", format!("{HEAD}{RES}[[dispatch]]\ngrid = [1,1,1]\ngird = 3\n\n{VAR}")),
        ("unknown measure", format!("{HEAD}{RES}{DISP}[measure]\nrep = 3\n\n{VAR}")),
        ("wrong type binding", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = \"x\"\ncount = 4\n\n{DISP}{VAR}")),
        ("wrong type reps", format!("{HEAD}{RES}{DISP}[measure]\nreps = \"x\"\n\n{VAR}")),
        ("wrong type name", format!("{HEAD}{RES}{DISP}[[variants]]\nname = 3\n")),
        ("wrong type count", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = true\n\n{DISP}{VAR}")),
        ("missing binding", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\ncount = 4\n\n{DISP}{VAR}")),
        ("missing scenario", format!("{RES}{DISP}{VAR}")),
        ("bad syntax", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = \"n *\"\n\n{DISP}{VAR}")),
        ("unknown var expr", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = \"m\"\n\n{DISP}{VAR}")),
        ("div0", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = \"n / 0\"\n\n{DISP}{VAR}")),
        ("nonint", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = \"n / 3\"\n\n{DISP}{VAR}")),
        ("float count", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 2.5\n\n{DISP}{VAR}")),
        ("neg count", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = -4\n\n{DISP}{VAR}")),
        ("missing shader", format!("[scenario]\nname = \"t\"\nshader = \"nope.comp\"\n\n{DISP}{VAR}")),
        ("missing shader disp", format!("{HEAD}[[dispatch]]\nshader = \"nope.comp\"\ngrid = [1,1,1]\n\n{VAR}")),
        ("no shader", format!("[scenario]\nname = \"t\"\n\n{DISP}{VAR}")),
        ("dup binding", format!("{HEAD}{RES}[[resources]]\nname = \"b\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\n\n{DISP}{VAR}")),
        ("dup name", format!("{HEAD}{RES}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 1\ncount = 4\n\n{DISP}{VAR}")),
        ("dup variant", format!("{HEAD}{RES}{DISP}[[variants]]\nname = \"v\"\nmatrix = {{ N = [1, 2] }}\n")),
        ("dup variant 2", format!("{HEAD}{RES}{DISP}{VAR}\n[[variants]]\nname = \"v\"\n")),
        ("elem", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\nelement = \"f64\"\ncount = 4\n\n{DISP}{VAR}")),
        ("format", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"image\"\nbinding = 0\nformat = \"rgb8\"\nwidth = 4\nheight = 4\n\n{DISP}{VAR}")),
        ("usage", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"image\"\nbinding = 0\nformat = \"r32f\"\nwidth = 4\nheight = 4\nusage = \"read\"\n\n{DISP}{VAR}")),
        ("init kind", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\ninit = {{ kind = \"sine\" }}\n\n{DISP}{VAR}")),
        ("init kind str", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\ninit = \"sine\"\n\n{DISP}{VAR}")),
        ("init key", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\ninit = {{ kind = \"ramp\", stepp = 2 }}\n\n{DISP}{VAR}")),
        ("init key multi", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\n\n[resources.init]\nkind = \"ramp\"\nstepp = 2\n\n{DISP}{VAR}")),
        ("init no kind", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\ninit = {{ start = 2 }}\n\n{DISP}{VAR}")),
        ("init constant", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\ninit = \"constant\"\n\n{DISP}{VAR}")),
        ("missing count", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\nelement = \"f32\"\n\n{DISP}{VAR}")),
        ("zero count", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = \"n - 10\"\n\n{DISP}{VAR}")),
        ("zero size_bytes", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\nsize_bytes = 0\n\n{DISP}{VAR}")),
        ("image zero", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"image\"\nbinding = 0\nformat = \"r32f\"\nwidth = 4\nheight = 0\n\n{DISP}{VAR}")),
        ("empty grid", format!("{HEAD}{RES}[[dispatch]]\ngrid = [0, 1, 1]\n\n{VAR}")),
        ("empty grid y", format!("{HEAD}{RES}[[dispatch]]\ngrid = [1, \"n - 10\", 1]\n\n{VAR}")),
        ("empty cover", format!("{HEAD}{RES}[[dispatch]]\ncover = [\"n - 10\"]\n\n{VAR}")),
        ("empty grid no wg", format!("{HEAD}{RES}[[dispatch]]\ngrid = [0, 1, 1]\n\n[[variants]]\nname = \"v\"\n")),
        ("both", format!("{HEAD}{RES}[[dispatch]]\ngrid = [1, 1, 1]\ncover = [1, 1, 1]\n\n{VAR}")),
        ("neither", format!("{HEAD}{RES}[[dispatch]]\nname = \"p\"\n\n{VAR}")),
        ("no dispatch", format!("{HEAD}{RES}{VAR}")),
        ("no variants", format!("{HEAD}{RES}{DISP}")),
        ("check output", format!("{HEAD}{RES}{DISP}[check]\noutputs = [\"a\", \"zz\"]\n\n{VAR}")),
        ("check baseline", format!("{HEAD}{RES}{DISP}[check]\nbaseline = \"zz\"\n\n{VAR}")),
        ("check reference", format!("{HEAD}{RES}{DISP}[check]\nreference = \"zz\"\n\n{VAR}")),
        ("check nothing", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\n\n{DISP}[check]\ntolerance = 0.1\n\n{VAR}")),
        ("sg wave64", format!("{HEAD}{RES}{DISP}{VAR}subgroup_size = \"wave64\"\n")),
        ("sg 0", format!("{HEAD}{RES}{DISP}{VAR}subgroup_size = 0\n")),
        ("sg matrix 0", format!("{HEAD}{RES}{DISP}[[variants]]\nname = \"v{{subgroup_size}}\"\nmatrix = {{ subgroup_size = [32, 0] }}\n")),
        ("sg scenario", format!("[scenario]\nname = \"t\"\nshader = \"glsl/smoke/smoke.comp\"\nsubgroup_size = \"wave64\"\n\n{DISP}{VAR}")),
        ("set 3", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nset = 3\nbinding = 0\ncount = 4\n\n{DISP}{VAR}")),
        ("set 3 big", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nset = 99\nbinding = 0\ncount = 4\n\n{DISP}{VAR}")),
        ("set neg", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nset = -1\nbinding = 0\ncount = 4\n\n{DISP}{VAR}")),
        ("template unknown", format!("{HEAD}{RES}{DISP}[[variants]]\nname = \"v{{M}}\"\nmatrix = {{ N = [1, 2] }}\n")),
        ("matrix empty", format!("{HEAD}{RES}{DISP}[[variants]]\nname = \"v{{N}}\"\nmatrix = {{ N = [] }}\n")),
        ("param bad", format!("[scenario]\nname = \"t\"\nshader = \"glsl/smoke/smoke.comp\"\n\n[params]\nn = \"x\"\n\n{DISP}{VAR}")),
        ("param empty list", format!("[scenario]\nname = \"t\"\nshader = \"glsl/smoke/smoke.comp\"\n\n[params]\nn = []\n\n{DISP}{VAR}")),
        ("pc unknown", format!("[scenario]\nname = \"t\"\nshader = \"glsl/smoke/smoke.comp\"\npush_constants = [\"q\"]\n\n{DISP}{VAR}")),
        ("pc too big", format!("[scenario]\nname = \"t\"\nshader = \"glsl/smoke/smoke.comp\"\npush_constants = [\"2 ** 40\"]\n\n{DISP}{VAR}")),
        ("reps 0", format!("{HEAD}{RES}{DISP}[measure]\nreps = 0\n\n{VAR}")),
        ("opt", format!("[scenario]\nname = \"t\"\nshader = \"glsl/smoke/smoke.comp\"\nopt = \"O3\"\n\n{DISP}{VAR}")),
        ("wg 0", format!("{HEAD}{RES}{DISP}[[variants]]\nname = \"v\"\nworkgroup = [0, 1, 1]\n")),
        ("wg 4", format!("{HEAD}{RES}{DISP}[[variants]]\nname = \"v\"\nworkgroup = [1, 1, 1, 1]\n")),
        ("bytes_read bad", format!("{HEAD}{RES}{DISP}[measure]\nbytes_read = \"n / 3\"\n\n{VAR}")),
        ("tolerance neg", format!("{HEAD}{RES}{DISP}[check]\nrel_tolerance = -1\n\n{VAR}")),
        ("res type", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"texture\"\nbinding = 0\ncount = 4\n\n{DISP}{VAR}")),
        ("image missing format", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"image\"\nbinding = 0\nwidth = 4\nheight = 4\n\n{DISP}{VAR}")),
        ("buffer format", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\nformat = \"r32f\"\n\n{DISP}{VAR}")),
        ("define bad", format!("{HEAD}{RES}{DISP}{VAR}defines = {{ X = [1] }}\n")),
        ("spec bad", format!("{HEAD}{RES}{DISP}{VAR}spec = {{ X = 1 }}\n")),
        ("random minmax", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\ninit = {{ kind = \"random\", min = 2, max = 1 }}\n\n{DISP}{VAR}")),
        ("random neg seed", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\ninit = {{ kind = \"random\", seed = -3 }}\n\n{DISP}{VAR}")),
        ("random frac seed", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\ninit = {{ kind = \"random\", seed = 1.5 }}\n\n{DISP}{VAR}")),
        ("huge count", format!("{HEAD}[[resources]]\nname = \"a\"\ntype = \"buffer\"\nbinding = 0\ncount = \"2 ** 53\"\nelement = \"f32\"\n\n{DISP}{VAR}")),
        ("empty name", format!("{HEAD}[[resources]]\nname = \"\"\ntype = \"buffer\"\nbinding = 0\ncount = 4\n\n{DISP}{VAR}")),
        ("unused matrix wg", format!("{HEAD}{RES}{DISP}[[variants]]\nname = \"v\"\nmatrix = {{ workgroup = [64] }}\n")),
        ("empty file", String::new()),
        ("check baseline with ref missing", format!("{HEAD}{RES}{DISP}[check]\nreference = \"smoke\"\n\n{VAR}")),
    ];
    for (n, t) in cases {
        println!("{n:>22}: {}", e(&t));
    }
    println!(
        "--set: {:?}",
        parse(
            Path::new("t.toml"),
            &format!("{HEAD}{RES}{DISP}{VAR}"),
            &vec![("n".into(), vec!["n / 3".into()])]
        )
        .err()
        .map(|e| e.to_string())
    );
    println!(
        "--set: {:?}",
        parse(
            Path::new("t.toml"),
            &format!("{HEAD}{RES}{DISP}{VAR}"),
            &vec![("n".into(), vec!["m".into()])]
        )
        .err()
        .map(|e| e.to_string())
    );
    println!(
        "--set: {:?}",
        parse(
            Path::new("t.toml"),
            &format!("{HEAD}{RES}{DISP}{VAR}"),
            &vec![("n".into(), vec!["0".into()])]
        )
        .err()
        .map(|e| e.to_string())
    );
}
