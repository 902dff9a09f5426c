//! The `shared` (Workgroup-storage) variables of a module and their sizes, which may depend on
//! spec constants (a `gl_WorkGroupSize`-sized array): what the occupancy rules need.
use super::Reflector;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

/// One Workgroup-storage variable: `len` elements of `elem_bytes` each (nested arrays are
/// flattened into `len`). The layout is tight, as drivers without explicit workgroup layout
/// are free to choose; vec3 counts 12 bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SharedVar {
    /// Variable name; empty when the SPIR-V carries no names.
    pub name: String,
    /// Size of the innermost non-array element (scalar, vector, matrix or struct).
    pub elem_bytes: u32,
    /// How many elements it holds (nested arrays multiplied out), maybe depending on spec
    /// constants.
    pub len: SharedLen,
}

/// An element count of a `shared` variable, possibly depending on spec constants.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum SharedLen {
    /// A literal count.
    Fixed(u64),
    /// A spec constant (e.g. one `local_size_x_id` component, which `gl_WorkGroupSize.x`
    /// resolves to) with its default value.
    Spec {
        /// The SpecId.
        spec_id: u32,
        /// The value it has without specialization.
        default: i64,
    },
    /// An `OpSpecConstantOp` on two of these.
    Op(SpecOp, Box<SharedLen>, Box<SharedLen>),
    /// Something reflection cannot evaluate.
    Unknown,
}

/// The integer operations of `OpSpecConstantOp` a shared array's length may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SpecOp {
    /// `OpIAdd`.
    Add,
    /// `OpISub`.
    Sub,
    /// `OpIMul`.
    Mul,
    /// `OpUDiv` or `OpSDiv` (truncating; None on division by zero).
    Div,
    /// `OpUMod`, `OpSRem` or `OpSMod`, all evaluated as a truncating remainder.
    Rem,
    /// `OpShiftLeftLogical`.
    Shl,
    /// `OpShiftRightLogical` or `OpShiftRightArithmetic`, both evaluated arithmetically on i64.
    Shr,
}

impl SharedLen {
    /// The value with spec constants from `spec` (by SpecId; `None` = the default). `None`
    /// when it cannot be computed, is negative, overflows or divides by zero.
    pub fn eval(&self, spec: &dyn Fn(u32) -> Option<i64>) -> Option<u64> {
        u64::try_from(self.eval_i64(spec, 0)?).ok()
    }

    fn eval_i64(&self, spec: &dyn Fn(u32) -> Option<i64>, depth: u32) -> Option<i64> {
        if depth > 64 {
            return None;
        }
        match self {
            SharedLen::Fixed(n) => i64::try_from(*n).ok(),
            SharedLen::Spec { spec_id, default } => Some(spec(*spec_id).unwrap_or(*default)),
            SharedLen::Unknown => None,
            SharedLen::Op(op, a, b) => {
                let (a, b) = (a.eval_i64(spec, depth + 1)?, b.eval_i64(spec, depth + 1)?);
                match op {
                    SpecOp::Add => a.checked_add(b),
                    SpecOp::Sub => a.checked_sub(b),
                    SpecOp::Mul => a.checked_mul(b),
                    SpecOp::Div => a.checked_div(b),
                    SpecOp::Rem => a.checked_rem(b),
                    SpecOp::Shl => a.checked_shl(u32::try_from(b).ok()?),
                    SpecOp::Shr => a.checked_shr(u32::try_from(b).ok()?),
                }
            }
        }
    }
}

impl SharedVar {
    /// Bytes of this variable with the given spec constant values (see [`SharedLen::eval`]).
    pub fn bytes_with(&self, spec: &dyn Fn(u32) -> Option<i64>) -> Option<u64> {
        self.len.eval(spec)?.checked_mul(self.elem_bytes as u64)
    }
}

impl Reflector<'_> {
    pub(super) fn shared_vars(&self) -> Vec<SharedVar> {
        let interface = self.interface();
        let mut out = Vec::new();
        for var in &self.module.types_global_values {
            if var.class.opcode != Op::Variable
                || Self::storage_class(var) != Some(StorageClass::Workgroup)
            {
                continue;
            }
            let (Some(id), Some(ptr_ty)) = (var.result_id, var.result_type) else {
                continue;
            };
            if interface.as_ref().is_some_and(|s| !s.contains(&id)) {
                continue;
            }
            let name = self.names.get(&id).cloned().unwrap_or_default();
            let pointee = self
                .def(ptr_ty)
                .filter(|p| p.class.opcode == Op::TypePointer)
                .and_then(|p| Self::id_operand(p, 1));
            let (elem_bytes, len) = match pointee {
                Some(ty) => self.shared_shape(ty),
                None => (0, SharedLen::Unknown),
            };
            out.push(SharedVar {
                name,
                elem_bytes,
                len,
            });
        }
        out
    }

    /// (innermost element bytes, element count) of a `shared` variable's type.
    fn shared_shape(&self, mut ty: Word) -> (u32, SharedLen) {
        let mut len = SharedLen::Fixed(1);
        for _ in 0..32 {
            let Some(t) = self.def(ty) else {
                return (0, SharedLen::Unknown);
            };
            if t.class.opcode != Op::TypeArray {
                return match self.type_size(ty, 0) {
                    Some(b) => (b, len),
                    None => (0, SharedLen::Unknown),
                };
            }
            let (Some(elem), Some(n)) = (Self::id_operand(t, 0), Self::id_operand(t, 1)) else {
                return (0, SharedLen::Unknown);
            };
            let dim = self.spec_value(n, 0);
            len = match len {
                SharedLen::Fixed(1) => dim,
                outer => SharedLen::Op(SpecOp::Mul, Box::new(outer), Box::new(dim)),
            };
            ty = elem;
        }
        (0, SharedLen::Unknown)
    }

    /// A constant or spec-constant integer as an expression over SpecIds.
    fn spec_value(&self, id: Word, depth: u32) -> SharedLen {
        if depth > 32 {
            return SharedLen::Unknown;
        }
        let Some(c) = self.def(id) else {
            return SharedLen::Unknown;
        };
        let signed = c
            .result_type
            .and_then(|t| self.def(t))
            .is_some_and(|t| t.class.opcode == Op::TypeInt && Self::lit_operand(t, 1) == Some(1));
        let literal = |v: u32| if signed { v as i32 as i64 } else { v as i64 };
        match c.class.opcode {
            Op::Constant => match Self::lit_operand(c, 0) {
                Some(v) if literal(v) >= 0 => SharedLen::Fixed(literal(v) as u64),
                _ => SharedLen::Unknown,
            },
            Op::SpecConstant => match (
                Self::lit_operand(c, 0),
                self.decoration_u32(id, Decoration::SpecId),
            ) {
                (Some(v), Some(spec_id)) => SharedLen::Spec {
                    spec_id,
                    default: literal(v),
                },
                // A spec constant without a SpecId cannot be changed: its default holds.
                (Some(v), None) if literal(v) >= 0 => SharedLen::Fixed(literal(v) as u64),
                _ => SharedLen::Unknown,
            },
            Op::SpecConstantOp => self.spec_op(c, depth),
            _ => SharedLen::Unknown,
        }
    }

    /// `OpSpecConstantOp`: the operation is operand 0, its operands follow.
    fn spec_op(&self, c: &Instruction, depth: u32) -> SharedLen {
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = c.operands.first() else {
            return SharedLen::Unknown;
        };
        let arg = |n: usize| {
            Self::id_operand(c, n)
                .map(|id| self.spec_value(id, depth + 1))
                .unwrap_or(SharedLen::Unknown)
        };
        let bin = |o: SpecOp| SharedLen::Op(o, Box::new(arg(1)), Box::new(arg(2)));
        match op {
            // `gl_WorkGroupSize.x`: a component of a (spec) constant composite.
            Op::CompositeExtract => {
                let (Some(comp), Some(index)) = (Self::id_operand(c, 1), Self::lit_operand(c, 2))
                else {
                    return SharedLen::Unknown;
                };
                match self.def(comp) {
                    Some(composite)
                        if matches!(
                            composite.class.opcode,
                            Op::ConstantComposite | Op::SpecConstantComposite
                        ) =>
                    {
                        match Self::id_operand(composite, index as usize) {
                            Some(part) => self.spec_value(part, depth + 1),
                            None => SharedLen::Unknown,
                        }
                    }
                    _ => SharedLen::Unknown,
                }
            }
            Op::UConvert | Op::SConvert | Op::Bitcast => arg(1),
            Op::IAdd => bin(SpecOp::Add),
            Op::ISub => bin(SpecOp::Sub),
            Op::IMul => bin(SpecOp::Mul),
            Op::UDiv | Op::SDiv => bin(SpecOp::Div),
            Op::UMod | Op::SRem | Op::SMod => bin(SpecOp::Rem),
            Op::ShiftLeftLogical => bin(SpecOp::Shl),
            Op::ShiftRightLogical | Op::ShiftRightArithmetic => bin(SpecOp::Shr),
            _ => SharedLen::Unknown,
        }
    }
}
