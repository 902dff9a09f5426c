//! Typed blocks: a push-constant block or a uniform buffer described member by member as the
//! shader declares it (type, std430 offset or an explicit one, a value expression per
//! component), laid out, checked against the module's reflection, and encoded to bytes.
use crate::scenario::error::Seg;
use crate::scenario::expr::{self, Vars};
use crate::shader::reflect::{BlockMember, MemberType, Scalar};

/// One member of a typed block, values not yet evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedMember {
    /// The name the scenario gives it (the shader's member name, by convention).
    pub name: String,
    /// Its type.
    pub ty: MemberType,
    /// Bytes from the block's start: the `offset` key, else the std430 rule.
    pub offset: u32,
    /// One expression per component (a scalar has one).
    pub values: Vec<String>,
    /// Where it is written (`scenario.push_constants[2]`), for errors.
    pub key: Vec<Seg>,
}

/// Offsets for members of these types, each at its explicit offset or else at the next
/// std430-aligned one after the previous member. An explicit offset must be a multiple of the
/// scalar size and must not overlap the member before it: `Err((index, why))` otherwise.
pub fn layout(members: &[(MemberType, Option<u32>)]) -> Result<Vec<u32>, (usize, String)> {
    let mut end = 0u32;
    let mut out = Vec::with_capacity(members.len());
    for (i, (ty, explicit)) in members.iter().enumerate() {
        let offset = match explicit {
            Some(o) => {
                if o % ty.scalar.bytes() != 0 {
                    return Err((
                        i,
                        format!(
                            "offset {o} is not a multiple of {} (the size of {})",
                            ty.scalar.bytes(),
                            ty.scalar.name()
                        ),
                    ));
                }
                if *o < end {
                    return Err((
                        i,
                        format!("offset {o} overlaps the member before it, which ends at {end}"),
                    ));
                }
                *o
            }
            None => end.next_multiple_of(ty.align()),
        };
        end = offset
            .checked_add(ty.size())
            .ok_or((i, format!("offset {offset} is too large")))?;
        out.push(offset);
    }
    Ok(out)
}

/// The block's size: where its last member ends.
pub fn size(members: &[TypedMember]) -> u32 {
    members
        .iter()
        .map(|m| m.offset + m.ty.size())
        .max()
        .unwrap_or(0)
}

/// The block's bytes with every value evaluated over `vars`, zero between members, padded to a
/// multiple of 4 (what `vkCmdPushConstants` takes). `Err((index, why))` names the member whose
/// value does not fit its type.
pub fn encode(members: &[TypedMember], vars: &Vars) -> Result<Vec<u8>, (usize, String)> {
    let mut bytes = vec![0u8; size(members).next_multiple_of(4) as usize];
    for (i, m) in members.iter().enumerate() {
        let width = m.ty.scalar.bytes() as usize;
        for (c, e) in m.values.iter().enumerate() {
            let v = value_bytes(m.ty.scalar, e, vars).map_err(|why| (i, why))?;
            let at = m.offset as usize + c * width;
            bytes[at..at + width].copy_from_slice(&v[..width]);
        }
    }
    Ok(bytes)
}

/// An integer written as a plain literal (decimal, or `0x` hex, `_` separators allowed), read
/// exactly: 64-bit values beyond 2^53 cannot go through the f64 evaluator.
fn exact_int(e: &str) -> Option<i128> {
    let t: String = e.trim().chars().filter(|c| *c != '_').collect();
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, t),
    };
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => i128::from_str_radix(h, 16).ok()?,
        None => t.parse::<i128>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// One value as the scalar's little-endian bytes (the low `bytes()` of the 8 returned).
fn value_bytes(scalar: Scalar, e: &str, vars: &Vars) -> Result<[u8; 8], String> {
    let int = |lo: i128, hi: i128| -> Result<i128, String> {
        let v = match exact_int(e) {
            Some(v) => v,
            None => i128::from(expr::eval_i64(e, vars).map_err(|err| err.to_string())?),
        };
        if v < lo || v > hi {
            return Err(format!(
                "`{e}` = {v} does not fit in {} ({lo} to {hi})",
                scalar.name()
            ));
        }
        Ok(v)
    };
    let real = || expr::eval(e, vars).map_err(|err| err.to_string());
    let mut out = [0u8; 8];
    match scalar {
        Scalar::U32 => out[..4].copy_from_slice(&(int(0, u32::MAX.into())? as u32).to_le_bytes()),
        Scalar::I32 => {
            out[..4].copy_from_slice(&(int(i32::MIN.into(), i32::MAX.into())? as i32).to_le_bytes())
        }
        Scalar::U64 => out.copy_from_slice(&(int(0, u64::MAX.into())? as u64).to_le_bytes()),
        Scalar::I64 => {
            out.copy_from_slice(&(int(i64::MIN.into(), i64::MAX.into())? as i64).to_le_bytes())
        }
        Scalar::F64 => out.copy_from_slice(&real()?.to_le_bytes()),
        Scalar::F32 => {
            let v = real()?;
            if v.abs() > f64::from(f32::MAX) {
                return Err(format!("`{e}` = {v} is beyond f32's range (±3.4e38)"));
            }
            out[..4].copy_from_slice(&(v as f32).to_le_bytes());
        }
        Scalar::F16 => {
            let v = real()?;
            let h = half::f16::from_f64(v);
            if h.is_infinite() {
                return Err(format!("`{e}` = {v} is beyond f16's range (±65504)"));
            }
            out[..2].copy_from_slice(&h.to_le_bytes());
        }
    }
    Ok(out)
}

/// Check the scenario's members against the module's (by position: type and offset), and
/// that neither has members the other lacks. `Err((index, why))` names the first mismatching
/// scenario member (`None`: the scenario gives none where the shader declares some).
pub fn check(
    members: &[TypedMember],
    shader: &[BlockMember],
) -> Result<(), (Option<usize>, String)> {
    let shader_name = |m: &BlockMember| {
        if m.name.is_empty() {
            String::new()
        } else {
            format!(" `{}`", m.name)
        }
    };
    let shader_ty = |m: &BlockMember| m.ty.map_or(m.other.clone(), |t| t.name());
    for (i, (mine, theirs)) in members.iter().zip(shader).enumerate() {
        // Names, where the module keeps them, catch members given out of order.
        if !theirs.name.is_empty() && theirs.name != mine.name {
            return Err((
                Some(i),
                format!(
                    "member `{}` is not the shader's member {i}, `{}`: give the members in the shader's order, with its names",
                    mine.name, theirs.name
                ),
            ));
        }
        let Some(ty) = theirs.ty else {
            return Err((
                Some(i),
                format!(
                    "member `{}`: the shader's member {i}{} is {}, which a typed block cannot give (scalars and vectors only)",
                    mine.name,
                    shader_name(theirs),
                    theirs.other
                ),
            ));
        };
        if ty != mine.ty {
            return Err((
                Some(i),
                format!(
                    "member `{}` is {} but the shader's member {i}{} is {}",
                    mine.name,
                    mine.ty.name(),
                    shader_name(theirs),
                    ty.name()
                ),
            ));
        }
        if theirs.offset != mine.offset {
            return Err((
                Some(i),
                format!(
                    "member `{}` is at offset {} but the shader's member {i}{} is at offset {}; give `offset = {}` if the shader's layout is not std430",
                    mine.name,
                    mine.offset,
                    shader_name(theirs),
                    theirs.offset,
                    theirs.offset
                ),
            ));
        }
    }
    if members.len() > shader.len() {
        let i = shader.len();
        return Err((
            Some(i),
            format!(
                "member `{}`: the shader's block has only {} member(s)",
                members[i].name,
                shader.len()
            ),
        ));
    }
    if let Some(missing) = shader.get(members.len()) {
        return Err((
            members.len().checked_sub(1),
            format!(
                "the shader's block has {} members but the scenario gives {}; the first missing is member {}{} ({} at offset {})",
                shader.len(),
                members.len(),
                members.len(),
                shader_name(missing),
                shader_ty(missing),
                missing.offset
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
#[path = "block_tests.rs"]
mod tests;
