//! A scenario's buffers and images: kinds, element types, formats, how they are filled.
use crate::scenario::error::Seg;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub name: String,
    pub set: u32,
    pub binding: u32,
    /// Element of the descriptor array at (set, binding); 0 for a plain binding.
    pub index: u32,
    pub kind: ResourceKind,
    pub init: Init,
    /// Read back after the run and compared by the check.
    pub output: bool,
    /// Where it is written in the scenario file (`resources[i]`), for errors.
    pub key: Vec<Seg>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ResourceKind {
    Buffer {
        element: Elem,
        bytes: u64,
    },
    Image {
        format: ImageFormat,
        width: u32,
        height: u32,
        usage: ImageUsage,
        linear: bool,
    },
}

impl Resource {
    /// Size in bytes of the resource's contents (tightly packed for images).
    pub fn bytes(&self) -> u64 {
        match &self.kind {
            ResourceKind::Buffer { bytes, .. } => *bytes,
            ResourceKind::Image {
                format,
                width,
                height,
                ..
            } => *width as u64 * *height as u64 * format.texel_bytes() as u64,
        }
    }

    /// The scalar type of each element of the contents.
    pub fn element(&self) -> Elem {
        match &self.kind {
            ResourceKind::Buffer { element, .. } => *element,
            ResourceKind::Image { format, .. } => format.element(),
        }
    }
}

/// Scalar element types for buffer contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    F32,
    U32,
    I32,
    F16,
    U8,
}

impl Elem {
    pub fn parse(s: &str) -> Option<Elem> {
        Some(match s {
            "f32" | "float" => Elem::F32,
            "u32" | "uint" => Elem::U32,
            "i32" | "int" => Elem::I32,
            "f16" | "half" => Elem::F16,
            "u8" => Elem::U8,
            _ => return None,
        })
    }
    pub fn bytes(self) -> u64 {
        match self {
            Elem::F32 | Elem::U32 | Elem::I32 => 4,
            Elem::F16 => 2,
            Elem::U8 => 1,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::F16 => "f16",
            Elem::U8 => "u8",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    Rgba32f,
    Rgba16f,
    R32f,
    Rgba8,
    R32ui,
}

impl ImageFormat {
    pub fn parse(s: &str) -> Option<ImageFormat> {
        Some(match s.to_ascii_lowercase().as_str() {
            "rgba32f" => ImageFormat::Rgba32f,
            "rgba16f" => ImageFormat::Rgba16f,
            "r32f" => ImageFormat::R32f,
            "rgba8" => ImageFormat::Rgba8,
            "r32ui" => ImageFormat::R32ui,
            _ => return None,
        })
    }
    pub fn texel_bytes(self) -> u32 {
        match self {
            ImageFormat::Rgba32f => 16,
            ImageFormat::Rgba16f => 8,
            ImageFormat::R32f | ImageFormat::Rgba8 | ImageFormat::R32ui => 4,
        }
    }
    pub fn element(self) -> Elem {
        match self {
            ImageFormat::Rgba32f | ImageFormat::R32f => Elem::F32,
            ImageFormat::Rgba16f => Elem::F16,
            ImageFormat::Rgba8 => Elem::U8,
            ImageFormat::R32ui => Elem::U32,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageUsage {
    Storage,
    Sampled,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    Zero,
    Constant(f64),
    Ramp {
        start: f64,
        step: f64,
    },
    Random {
        seed: u64,
        min: f64,
        max: f64,
    },
    /// Contents from a file (`init = { file = "frame.npy" }`), its path resolved against the
    /// scenario's folder and its type and size checked when the scenario loaded.
    File {
        path: PathBuf,
        format: FileFormat,
    },
}

/// The kinds of file an `init` can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// NumPy `.npy`: dtype and element count (shape for images) must fit the resource.
    Npy,
    /// An 8-bit RGBA or RGB PNG, for `rgba8` images.
    Png,
}
