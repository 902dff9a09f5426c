//! Tests of the expression language: values, errors, limits and properties.
use super::eval::div_ceil;
use super::*;
use proptest::prelude::*;

fn vars(pairs: &[(&str, f64)]) -> Vars {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

fn ev(s: &str) -> f64 {
    eval(
        s,
        &vars(&[("width", 100.0), ("height", 30.0), ("n", 1000.0)]),
    )
    .unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn err(s: &str) -> ExprError {
    eval(
        s,
        &vars(&[("width", 100.0), ("height", 30.0), ("n", 1000.0)]),
    )
    .expect_err(&format!("{s} should fail"))
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(ev("1 + 2 * 3"), 7.0);
    assert_eq!(ev("(1 + 2) * 3"), 9.0);
    assert_eq!(ev("10 - 3 - 2"), 5.0);
    assert_eq!(ev("64 / 4 / 2"), 8.0);
    assert_eq!(ev("2 ** 3 ** 2"), 512.0);
    assert_eq!(ev("2 ^ 3 ^ 2"), 512.0);
    assert_eq!(ev("-2 ** 2"), -4.0);
    assert_eq!(ev("2 ** -1"), 0.5);
    assert_eq!(ev("--3"), 3.0);
    assert_eq!(ev("+3 - -3"), 6.0);
    assert_eq!(ev("2 * 3 ** 2"), 18.0);
    assert_eq!(ev("7 % 3 * 2"), 2.0);
    assert_eq!(ev("-7 % 3"), -1.0);
    assert_eq!(ev("7.5 % 2"), 1.5);
    assert_eq!(ev("7 / 2"), 3.5);
    assert_eq!(ev("  width*height*16 "), 48000.0);
}

#[test]
fn numbers() {
    assert_eq!(ev("1_000_000"), 1e6);
    assert_eq!(ev("0xff"), 255.0);
    assert_eq!(ev("0XFF_FF"), 65535.0);
    assert_eq!(ev("1.5"), 1.5);
    assert_eq!(ev(".5"), 0.5);
    assert_eq!(ev("2."), 2.0);
    assert_eq!(ev("1e3"), 1000.0);
    assert_eq!(ev("2.5E-1"), 0.25);
    assert!(matches!(err("1__0"), ExprError::Syntax { .. }));
    assert!(matches!(err("1_"), ExprError::Syntax { .. }));
    assert!(matches!(err("0x"), ExprError::Syntax { .. }));
    assert!(matches!(err("0xg"), ExprError::Syntax { .. }));
    assert!(matches!(err("1.2.3"), ExprError::Syntax { .. }));
    assert!(matches!(err("2e"), ExprError::Syntax { .. }));
    assert!(matches!(err("."), ExprError::Syntax { .. }));
    assert!(matches!(err("1e400"), ExprError::Overflow { .. }));
    assert!(matches!(
        err("0xffff_ffff_ffff_ffff_f"),
        ExprError::Overflow { .. }
    ));
}

#[test]
fn functions() {
    assert_eq!(ev("ceil(width / 8)"), 13.0);
    assert_eq!(ev("floor(width / 8)"), 12.0);
    assert_eq!(ev("round(2.5)"), 3.0);
    assert_eq!(ev("round(-2.5)"), -3.0);
    assert_eq!(ev("abs(-4)"), 4.0);
    assert_eq!(ev("sqrt(16)"), 4.0);
    assert_eq!(ev("log2(1024)"), 10.0);
    assert_eq!(ev("min(3, 1, 2)"), 1.0);
    assert_eq!(ev("max(1, n / 256)"), 1000.0 / 256.0);
    assert_eq!(ev("max(1, 2)"), 2.0);
    assert_eq!(ev("pow(2, 10)"), 1024.0);
    assert_eq!(ev("div_ceil(100, 8)"), 13.0);
    assert_eq!(ev("div_ceil(96, 8)"), 12.0);
    assert_eq!(ev("div_ceil(-7, 2)"), -3.0);
    assert_eq!(ev("div_ceil(7, -2)"), -3.0);
    assert_eq!(ev("div_ceil(-7, -2)"), 4.0);
    assert_eq!(ev("div_ceil(7.5, 2)"), 4.0);
    assert_eq!(ev("clamp(5, 0, 3)"), 3.0);
    assert_eq!(ev("clamp(-5, 0, 3)"), 0.0);
    assert_eq!(ev("align(100, 64)"), 128.0);
    assert_eq!(ev("align(128, 64)"), 128.0);
    assert_eq!(ev("align(0, 64)"), 0.0);
    assert_eq!(ev("max(min(width, height), 2 ** 4)"), 30.0);
    // A variable may share a function's name; only a following `(` makes a call.
    assert_eq!(eval("max * 2", &vars(&[("max", 4.0)])), Ok(8.0));
}

#[test]
fn div_ceil_matches_integer_arithmetic() {
    let big = (1i64 << 53) - 1;
    for (a, b) in [
        (big, 2),
        (big, big - 1),
        (big, 3),
        (-big, 7),
        (1 << 52, 1),
        (5, 5),
    ] {
        let expected = a.div_euclid(b) + i64::from(a.rem_euclid(b) != 0);
        assert_eq!(div_ceil(a as f64, b as f64), expected as f64, "{a} / {b}");
    }
}

#[test]
fn integer_entry_points() {
    let v = vars(&[("n", 1000.0), ("w", 8.0)]);
    assert_eq!(eval_u64("ceil(n / 256)", &v), Ok(4));
    assert_eq!(eval_u64("n * 4", &v), Ok(4000));
    assert_eq!(eval_u64("-0", &v), Ok(0));
    assert_eq!(eval_i64("8 - n", &v), Ok(-992));
    assert_eq!(eval_u64("2 ** 53", &v), Ok(1 << 53));
    assert_eq!(eval_i64("-(2 ** 53)", &v), Ok(-(1 << 53)));

    let e = eval_u64("7 / 2", &v).unwrap_err();
    assert!(matches!(e, ExprError::NotInteger { value, .. } if value == 3.5));
    let msg = e.to_string();
    assert!(msg.contains("`7 / 2`") && msg.contains("3.5") && msg.contains("ceil()"));

    let e = eval_u64("w - n", &v).unwrap_err();
    assert!(matches!(e, ExprError::Negative { value, .. } if value == -992.0));
    assert!(e.to_string().contains("non-negative"));

    let e = eval_u64("2 ** 53 + 2", &v).unwrap_err();
    assert!(matches!(e, ExprError::OutOfRange { .. }), "{e}");
    assert!(e.to_string().contains("2^53"));
    assert!(matches!(
        eval_i64("-(2 ** 60)", &v),
        Err(ExprError::OutOfRange { .. })
    ));
}

#[test]
fn error_messages() {
    let v = vars(&[("n", 16.0), ("w", 8.0)]);
    let e = eval("n / (w - 8)", &v).unwrap_err();
    assert_eq!(
        e,
        ExprError::DivisionByZero {
            expr: "n / (w - 8)".into()
        }
    );
    assert_eq!(e.to_string(), "division by zero in `n / (w - 8)`");

    let v = vars(&[("width", 1.0), ("height", 1.0), ("n", 1.0)]);
    let e = eval("widht * 2", &v).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown variable `widht` (known: height, n, width)"
    );
    let e = eval("x", &Vars::new()).unwrap_err();
    assert!(e.to_string().contains("no variables are defined"));

    let e = err("cell(n)");
    assert!(matches!(&e, ExprError::UnknownFunction { name } if name == "cell"));
    assert!(e.to_string().contains("ceil"), "{e}");

    let e = err("min(1)");
    assert!(matches!(&e, ExprError::WrongArgCount { got: 1, .. }));
    assert_eq!(
        e.to_string(),
        "function `min` takes at least 2 arguments, but 1 were given in `min(1)`"
    );
    assert!(matches!(
        err("ceil(1, 2)"),
        ExprError::WrongArgCount { got: 2, .. }
    ));
    assert!(matches!(
        err("ceil()"),
        ExprError::WrongArgCount { got: 0, .. }
    ));
    assert!(matches!(
        err("clamp(1, 2)"),
        ExprError::WrongArgCount { got: 2, .. }
    ));

    let e = err("n * (  * 4)");
    assert_eq!(
        e,
        ExprError::Syntax {
            expr: "n * (  * 4)".into(),
            position: 8,
            message: "expected a number, a variable, a function call or `(`, found `*`".into()
        }
    );
    assert!(e.to_string().starts_with("syntax error at character 8"));
    let e = err("é + 1");
    assert!(matches!(e, ExprError::Syntax { position: 1, .. }), "{e}");
    let e = err("1 + é");
    assert!(matches!(e, ExprError::Syntax { position: 5, .. }), "{e}");
    assert!(matches!(err(""), ExprError::Syntax { .. }));
    assert!(matches!(err("   "), ExprError::Syntax { .. }));
    assert!(matches!(err("(1 + 2"), ExprError::Syntax { .. }));
    assert!(matches!(err("1 + 2)"), ExprError::Syntax { .. }));
    assert!(matches!(err("1 2"), ExprError::Syntax { .. }));
    assert!(matches!(err("max(1 2)"), ExprError::Syntax { .. }));
    assert!(matches!(err("max(1,)"), ExprError::Syntax { .. }));
    assert!(matches!(err("1 +"), ExprError::Syntax { .. }));
    assert!(matches!(err("2 ** * 3"), ExprError::Syntax { .. }));
}

#[test]
fn division_by_zero_everywhere() {
    for s in [
        "1 / 0",
        "1 % 0",
        "ceil(n / (width - 100))",
        "div_ceil(n, 0)",
        "align(n, 0)",
        "0 ** -1",
        "pow(0, -2)",
    ] {
        assert!(
            matches!(err(s), ExprError::DivisionByZero { .. }),
            "{s}: {}",
            err(s)
        );
    }
    assert_eq!(
        err("1 + ceil(n / (width - 100))").to_string(),
        "division by zero in `n / (width - 100)`"
    );
}

#[test]
fn overflow_and_domain() {
    let e = err("2 ** 64");
    assert!(matches!(e, ExprError::Overflow { .. }), "{e}");
    assert!(e.to_string().contains("`2 ** 64`"), "{e}");
    assert!(e.to_string().contains("2^63"), "{e}");
    assert_eq!(ev("2 ** 63"), 2f64.powi(63));
    assert!(matches!(
        err("(2 ** 62) * 4 / 4"),
        ExprError::Overflow { .. }
    ));
    assert!(matches!(err("width ** height"), ExprError::Overflow { .. }));
    assert!(matches!(
        eval("x + 1", &vars(&[("x", f64::NAN)])),
        Err(ExprError::Overflow { .. })
    ));
    assert!(matches!(
        eval("x", &vars(&[("x", f64::INFINITY)])),
        Err(ExprError::Overflow { .. })
    ));
    assert!(matches!(err("(-8) ** 0.5"), ExprError::Overflow { .. }));
    assert!(matches!(err("sqrt(-1)"), ExprError::Domain { .. }));
    assert!(matches!(err("log2(0)"), ExprError::Domain { .. }));
    assert!(matches!(err("clamp(1, 3, 2)"), ExprError::Domain { .. }));
    let e = err("align(10, -4)");
    assert!(matches!(e, ExprError::Domain { .. }));
    assert!(e.to_string().contains("alignment must be positive"), "{e}");
}

#[test]
fn limits() {
    let long = format!("1{}", "+1".repeat(MAX_LEN));
    assert!(matches!(
        eval(&long, &Vars::new()),
        Err(ExprError::TooLong { .. })
    ));
    let ok_long = format!("1{}", "+1".repeat((MAX_LEN - 1) / 2));
    assert_eq!(eval(&ok_long, &Vars::new()), Ok(2048.0));

    let nested = |d: usize| format!("{}1{}", "(".repeat(d), ")".repeat(d));
    assert_eq!(eval(&nested(MAX_DEPTH - 1), &Vars::new()), Ok(1.0));
    assert!(matches!(
        eval(&nested(MAX_DEPTH + 1), &Vars::new()),
        Err(ExprError::TooDeep { .. })
    ));
    for deep in [
        nested(2000),
        format!("{}1", "-".repeat(4000)),
        format!("{}1", "2**".repeat(1300)),
        format!("{}1{}", "abs(".repeat(800), ")".repeat(800)),
    ] {
        assert!(
            matches!(eval(&deep, &Vars::new()), Err(ExprError::TooDeep { .. })),
            "{}",
            &deep[..20]
        );
    }
}

#[test]
fn variables_lists_names_once_in_order() {
    assert_eq!(
        variables("width * height + max(width, n) - pow(k, 2)").unwrap(),
        vec!["width", "height", "n", "k"]
    );
    assert_eq!(variables("1 + 2").unwrap(), Vec::<String>::new());
    assert!(matches!(variables("1 +"), Err(ExprError::Syntax { .. })));
    assert!(matches!(
        variables("foo(1)"),
        Err(ExprError::UnknownFunction { .. })
    ));
}

const TOKENS: &[&str] = &[
    "1",
    "0",
    "2",
    "8",
    "0.5",
    "1e3",
    "0x10",
    "1_0",
    "n",
    "w",
    "x",
    "_",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "^",
    "(",
    ")",
    ",",
    "ceil",
    "floor",
    "round",
    "min",
    "max",
    "abs",
    "pow",
    "log2",
    "sqrt",
    "div_ceil",
    "clamp",
    "align",
    "bogus",
    " ",
    ".",
    "e",
    "__",
    "é",
    "\t",
    "99999999999999999999",
    "1e308",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..80).prop_map(|v| v.concat())
}

fn must_not_panic(s: &str) {
    let v = vars(&[("n", 1000.0), ("w", 0.0), ("x", -3.5)]);
    let r = eval(s, &v);
    if let Ok(x) = r {
        assert!(x.abs() <= MAX_MAGNITUDE, "{s} gave {x}");
    }
    let _ = eval_u64(s, &v);
    let _ = eval_i64(s, &v);
    let _ = variables(s);
    if let Err(e) = r {
        assert!(!e.to_string().is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        must_not_panic(&s);
    }

    #[test]
    fn printable_strings_never_panic(s in "[ -~]{0,200}") {
        must_not_panic(&s);
    }

    #[test]
    fn token_soups_never_panic(s in token_soup()) {
        must_not_panic(&s);
    }
}
