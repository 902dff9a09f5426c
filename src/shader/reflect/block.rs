//! The members of a push-constant block or a uniform block as the module lays them out: what a
//! scenario's typed block description is checked against.
use super::Reflector;
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Word};

/// A scalar type a typed block member may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Scalar {
    /// `uint`, 32 bits.
    U32,
    /// `int`, 32 bits.
    I32,
    /// `float`, 32 bits.
    F32,
    /// `float16_t` / `half`, 16 bits.
    F16,
    /// `uint64_t`, 64 bits.
    U64,
    /// `int64_t`, 64 bits.
    I64,
    /// `double`, 64 bits.
    F64,
}

impl Scalar {
    /// Bytes one value takes.
    pub fn bytes(self) -> u32 {
        match self {
            Scalar::F16 => 2,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 4,
            Scalar::U64 | Scalar::I64 | Scalar::F64 => 8,
        }
    }

    /// The scenario file's name for it (`u32`, `f16`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Scalar::U32 => "u32",
            Scalar::I32 => "i32",
            Scalar::F32 => "f32",
            Scalar::F16 => "f16",
            Scalar::U64 => "u64",
            Scalar::I64 => "i64",
            Scalar::F64 => "f64",
        }
    }

    /// The GLSL vector-name prefix (`vec`, `uvec`, `f16vec`, ...).
    fn vec_prefix(self) -> &'static str {
        match self {
            Scalar::U32 => "uvec",
            Scalar::I32 => "ivec",
            Scalar::F32 => "vec",
            Scalar::F16 => "f16vec",
            Scalar::U64 => "u64vec",
            Scalar::I64 => "i64vec",
            Scalar::F64 => "dvec",
        }
    }

    const ALL: [Scalar; 7] = [
        Scalar::U32,
        Scalar::I32,
        Scalar::F32,
        Scalar::F16,
        Scalar::U64,
        Scalar::I64,
        Scalar::F64,
    ];
}

/// A block member's type: a scalar, or a vector of 2 to 4 of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MemberType {
    /// The component type.
    pub scalar: Scalar,
    /// Components: 1 for a scalar, 2-4 for a vector.
    pub len: u32,
}

impl MemberType {
    /// Every name a scenario may write, for error messages.
    pub const NAMES: &'static str = "u32, i32, f32, f16, u64, i64, f64 (or uint, int, float, \
        half, float16_t, uint64_t, int64_t, double), and vectors of 2-4: vec2, uvec3, ivec4, \
        f16vec2, u64vec2, i64vec2, dvec2 (or HLSL's float2, uint3, half4, ...)";

    /// Parse a type name: `u32`, `f16`, `uint`, `float`, `vec3`, `uvec2`, `f16vec4`, `float2`.
    pub fn parse(s: &str) -> Option<MemberType> {
        let scalar = |n: &str| -> Option<Scalar> {
            Some(match n {
                "u32" | "uint" => Scalar::U32,
                "i32" | "int" => Scalar::I32,
                "f32" | "float" => Scalar::F32,
                "f16" | "half" | "float16_t" => Scalar::F16,
                "u64" | "uint64_t" => Scalar::U64,
                "i64" | "int64_t" => Scalar::I64,
                "f64" | "double" => Scalar::F64,
                _ => return None,
            })
        };
        if let Some(s) = scalar(s) {
            return Some(MemberType { scalar: s, len: 1 });
        }
        let (head, digit) = s.split_at(s.len().checked_sub(1)?);
        let len: u32 = digit.parse().ok().filter(|n| (2..=4).contains(n))?;
        let sc = Scalar::ALL
            .into_iter()
            .find(|c| c.vec_prefix() == head)
            .or_else(|| scalar(head))?;
        Some(MemberType { scalar: sc, len })
    }

    /// Bytes the member takes.
    pub fn size(self) -> u32 {
        self.scalar.bytes() * self.len
    }

    /// Its alignment under std430 (and std140: the same for scalars and vectors): a scalar's
    /// size, twice that for a 2-vector, four times for a 3- or 4-vector.
    pub fn align(self) -> u32 {
        self.scalar.bytes()
            * if self.len == 1 {
                1
            } else {
                self.len.next_power_of_two()
            }
    }

    /// The name a scenario writes: `u32`, `vec3`, `f16vec2`, ...
    pub fn name(self) -> String {
        if self.len == 1 {
            self.scalar.name().to_string()
        } else {
            format!("{}{}", self.scalar.vec_prefix(), self.len)
        }
    }
}

/// One member of a block as the module lays it out.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BlockMember {
    /// The member's name; empty when the SPIR-V carries no names.
    pub name: String,
    /// Its `Offset` decoration (bytes from the block's start).
    pub offset: u32,
    /// Its type, when it is a scalar or vector a scenario can give; None for arrays,
    /// structs, matrices and anything else.
    pub ty: Option<MemberType>,
    /// What the type is, in words, when `ty` is None (`array`, `struct`, `matrix`, ...).
    pub other: String,
}

impl Reflector<'_> {
    /// The members of the struct type `ty` (a Block), in declaration order.
    pub(super) fn block_members(&self, ty: Word) -> Vec<BlockMember> {
        let Some(t) = self.def(ty) else {
            return Vec::new();
        };
        if t.class.opcode != Op::TypeStruct {
            return Vec::new();
        }
        let names = self.member_names(ty);
        t.operands
            .iter()
            .enumerate()
            .filter_map(|(n, op)| match op {
                Operand::IdRef(member) => Some((n, *member)),
                _ => None,
            })
            .map(|(n, member)| {
                let mtype = self.member_type(member);
                let other = match mtype {
                    Some(_) => String::new(),
                    None => self
                        .def(member)
                        .map_or("unknown".into(), |d| match d.class.opcode {
                            Op::TypeArray | Op::TypeRuntimeArray => "an array".into(),
                            Op::TypeStruct => "a struct".into(),
                            Op::TypeMatrix => "a matrix".into(),
                            Op::TypeBool => "a bool".into(),
                            op => format!("{op:?}"),
                        }),
                };
                BlockMember {
                    name: names.get(&(n as u32)).cloned().unwrap_or_default(),
                    offset: self
                        .member_offsets
                        .get(&(ty, n as u32))
                        .copied()
                        .unwrap_or(0),
                    ty: mtype,
                    other,
                }
            })
            .collect()
    }

    /// The push-constant block's members (the first PushConstant variable's struct type).
    pub(super) fn push_members(&self) -> Vec<BlockMember> {
        self.module
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Variable
                    && Self::storage_class(i) == Some(rspirv::spirv::StorageClass::PushConstant)
            })
            .find_map(|v| {
                let ptr = self.def(v.result_type?)?;
                Some(self.block_members(Self::id_operand(ptr, 1)?))
            })
            .unwrap_or_default()
    }

    fn member_names(&self, ty: Word) -> std::collections::HashMap<u32, String> {
        self.module
            .debug_names
            .iter()
            .filter_map(|i| match (i.class.opcode, i.operands.as_slice()) {
                (
                    Op::MemberName,
                    [Operand::IdRef(id), Operand::LiteralBit32(m), Operand::LiteralString(s), ..],
                ) if *id == ty => Some((*m, s.clone())),
                _ => None,
            })
            .collect()
    }

    fn member_type(&self, ty: Word) -> Option<MemberType> {
        let t = self.def(ty)?;
        let scalar = |t: &rspirv::dr::Instruction| -> Option<Scalar> {
            match (
                t.class.opcode,
                Self::lit_operand(t, 0),
                Self::lit_operand(t, 1),
            ) {
                (Op::TypeInt, Some(32), Some(0)) => Some(Scalar::U32),
                (Op::TypeInt, Some(32), Some(1)) => Some(Scalar::I32),
                (Op::TypeInt, Some(64), Some(0)) => Some(Scalar::U64),
                (Op::TypeInt, Some(64), Some(1)) => Some(Scalar::I64),
                (Op::TypeFloat, Some(16), _) => Some(Scalar::F16),
                (Op::TypeFloat, Some(32), _) => Some(Scalar::F32),
                (Op::TypeFloat, Some(64), _) => Some(Scalar::F64),
                _ => None,
            }
        };
        match t.class.opcode {
            Op::TypeVector => Some(MemberType {
                scalar: scalar(self.def(Self::id_operand(t, 0)?)?)?,
                len: Self::lit_operand(t, 1)?,
            }),
            _ => Some(MemberType {
                scalar: scalar(t)?,
                len: 1,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_parse_and_print() {
        let t = |s| MemberType::parse(s).map(|t| (t.name(), t.size(), t.align()));
        assert_eq!(t("u32"), Some(("u32".into(), 4, 4)));
        assert_eq!(t("float"), Some(("f32".into(), 4, 4)));
        assert_eq!(t("half"), Some(("f16".into(), 2, 2)));
        assert_eq!(t("vec3"), Some(("vec3".into(), 12, 16)));
        assert_eq!(t("float3"), Some(("vec3".into(), 12, 16)));
        assert_eq!(t("uvec2"), Some(("uvec2".into(), 8, 8)));
        assert_eq!(t("f16vec4"), Some(("f16vec4".into(), 8, 8)));
        assert_eq!(t("u64vec3"), Some(("u64vec3".into(), 24, 32)));
        assert_eq!(t("i64"), Some(("i64".into(), 8, 8)));
        assert_eq!(t("vec5"), None);
        assert_eq!(t("vec1"), None);
        assert_eq!(t("f8"), None);
        assert_eq!(t(""), None);
        assert_eq!(t("mat4"), None);
    }
}
