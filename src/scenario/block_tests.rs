//! Typed blocks: std430 offsets, explicit ones, encoding every scalar type, and the check
//! against reflection naming the first mismatch.
use super::*;

fn ty(s: &str) -> MemberType {
    MemberType::parse(s).unwrap()
}

fn members(spec: &[(&str, &str, &[&str])]) -> Vec<TypedMember> {
    let types: Vec<(MemberType, Option<u32>)> =
        spec.iter().map(|(_, t, _)| (ty(t), None)).collect();
    let offsets = layout(&types).unwrap();
    spec.iter()
        .zip(offsets)
        .map(|((name, t, values), offset)| TypedMember {
            name: name.to_string(),
            ty: ty(t),
            offset,
            values: values.iter().map(|v| v.to_string()).collect(),
            key: vec![],
        })
        .collect()
}

#[test]
fn std430_offsets() {
    let types = [
        "u32", "f16", "vec3", "f32", "u64", "f16vec2", "uvec2", "i64vec2",
    ]
    .map(|t| (ty(t), None));
    assert_eq!(layout(&types).unwrap(), vec![0, 4, 16, 28, 32, 40, 48, 64]);
}

#[test]
fn explicit_offsets_are_checked() {
    assert_eq!(
        layout(&[(ty("f32"), None), (ty("vec3"), Some(4))]).unwrap(),
        vec![0, 4]
    );
    let e = layout(&[(ty("f32"), None), (ty("u64"), Some(4))]).unwrap_err();
    assert_eq!(e.0, 1);
    assert!(e.1.contains("not a multiple of 8"), "{}", e.1);
    let e = layout(&[(ty("vec2"), None), (ty("f32"), Some(4))]).unwrap_err();
    assert!(e.1.contains("overlaps"), "{}", e.1);
}

#[test]
fn encodes_every_scalar_type() {
    let m = members(&[
        ("a", "u32", &["7"]),
        ("h", "f16", &["0.5"]),
        ("s", "f32", &["2 ** -8"]),
        ("big", "u64", &["0xffff_ffff_ffff_fffe"]),
        ("neg", "i64", &["-3"]),
        ("v", "ivec2", &["-1", "n"]),
    ]);
    let vars = Vars::from([("n".to_string(), 5.0)]);
    let b = encode(&m, &vars).unwrap();
    assert_eq!(b.len(), 40);
    assert_eq!(&b[0..4], &7u32.to_le_bytes());
    assert_eq!(&b[4..6], &half::f16::from_f32(0.5).to_le_bytes());
    assert_eq!(&b[8..12], &(1.0f32 / 256.0).to_le_bytes());
    assert_eq!(&b[16..24], &0xffff_ffff_ffff_fffeu64.to_le_bytes());
    assert_eq!(&b[24..32], &(-3i64).to_le_bytes());
    assert_eq!(&b[32..36], &(-1i32).to_le_bytes());
    assert_eq!(&b[36..40], &5i32.to_le_bytes());
}

#[test]
fn values_that_do_not_fit_name_the_member() {
    let vars = Vars::new();
    for (t, v, want) in [
        ("u32", "-1", "does not fit in u32"),
        ("i32", "2 ** 31", "does not fit in i32"),
        ("f16", "70000", "beyond f16's range"),
        ("u32", "0.5", "not an integer"),
    ] {
        let m = members(&[("ok", "u32", &["1"]), ("bad", t, &[v])]);
        let e = encode(&m, &vars).unwrap_err();
        assert_eq!(e.0, 1, "{t} {v}");
        assert!(e.1.contains(want), "{t} {v}: {}", e.1);
    }
}

fn shader(spec: &[(&str, u32, &str)]) -> Vec<BlockMember> {
    spec.iter()
        .map(|(name, offset, t)| BlockMember {
            name: name.to_string(),
            offset: *offset,
            ty: MemberType::parse(t),
            other: if MemberType::parse(t).is_some() {
                String::new()
            } else {
                t.to_string()
            },
        })
        .collect()
}

#[test]
fn the_check_names_the_first_mismatch() {
    let mine = members(&[
        ("n", "u32", &["1"]),
        ("scale", "f32", &["1"]),
        ("v", "vec3", &["1", "2", "3"]),
    ]);
    assert_eq!(
        check(
            &mine,
            &shader(&[("n", 0, "u32"), ("scale", 4, "f32"), ("v", 16, "vec3")])
        ),
        Ok(())
    );
    let e = check(
        &mine,
        &shader(&[("n", 0, "u32"), ("scale", 4, "u32"), ("v", 16, "vec3")]),
    )
    .unwrap_err();
    assert_eq!(e.0, Some(1));
    assert!(
        e.1.contains("member `scale` is f32 but the shader's member 1 `scale` is u32"),
        "{}",
        e.1
    );
    let e = check(
        &mine,
        &shader(&[("n", 0, "u32"), ("scale", 4, "f32"), ("v", 8, "vec3")]),
    )
    .unwrap_err();
    assert!(
        e.1.contains("offset 16 but") && e.1.contains("offset = 8"),
        "{}",
        e.1
    );
    let e = check(&mine, &shader(&[("n", 0, "u32"), ("scale", 4, "f32")])).unwrap_err();
    assert_eq!(e.0, Some(2));
    assert!(e.1.contains("only 2 member"), "{}", e.1);
    let e = check(
        &mine,
        &shader(&[
            ("n", 0, "u32"),
            ("scale", 4, "f32"),
            ("v", 16, "vec3"),
            ("w", 28, "f32"),
        ]),
    )
    .unwrap_err();
    assert!(
        e.1.contains("first missing is member 3 `w` (f32 at offset 28)"),
        "{}",
        e.1
    );
    let e = check(&mine, &shader(&[("n", 0, "an array")])).unwrap_err();
    assert!(e.1.contains("an array"), "{}", e.1);
}

/// Issue 40: llama.cpp's 68-byte matmul push block (17 uints) goes in as it is.
#[test]
fn a_68_byte_block_of_17_uints() {
    let names: Vec<String> = (0..17).map(|i| format!("m{i}")).collect();
    let spec: Vec<(&str, &str, &[&str])> = names
        .iter()
        .map(|n| (n.as_str(), "u32", &["7"][..]))
        .collect();
    let m = members(&spec);
    assert_eq!(size(&m), 68);
    assert_eq!(m[16].offset, 64);
    assert_eq!(encode(&m, &Vars::new()).unwrap().len(), 68);
}
