//! A scenario's buffers and images: kinds, element types, formats, how they are filled.
use crate::scenario::error::Seg;
use std::path::PathBuf;

/// A `[[resources]]` entry of one params case, sizes evaluated: created once per case and shared by
/// its variants.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// The entry's `name`: unique in the file, named by `[check].outputs`, references and messages.
    pub name: String,
    /// Descriptor set (3 is reserved for the probe).
    pub set: u32,
    /// Binding within the set.
    pub binding: u32,
    /// Element of the descriptor array at (set, binding); 0 for a plain binding.
    pub index: u32,
    /// Buffer or image, with its size and type.
    pub kind: ResourceKind,
    /// How its contents start (`init`; zeros by default).
    pub init: Init,
    /// Read back after the run and compared by the check.
    pub output: bool,
    /// Where it is written in the scenario file (`resources[i]`), for errors.
    pub key: Vec<Seg>,
}

/// What a resource is, sized.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceKind {
    /// A storage buffer (`type = "buffer"`).
    Buffer {
        /// The element type (`element`, default u32), which `init` writes and the check reads.
        element: Elem,
        /// Size in bytes: `size_bytes`, or `count` × the element's size.
        bytes: u64,
    },
    /// A uniform buffer (`type = "uniform"`) filled by typed members: GLSL's `uniform` block,
    /// HLSL's `cbuffer` or `$Global`. Read-only to the shader, never an output.
    Uniform {
        /// Size in bytes: where the last member ends, padded to 16 (a uniform block's
        /// alignment).
        bytes: u64,
    },
    /// A 2-D image (`type = "image"`).
    Image {
        /// Texel format; it sets the element type.
        format: ImageFormat,
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// Bound as a storage image or as a combined image sampler.
        usage: ImageUsage,
        /// The sampler filters bilinearly (`filter = "linear"`); false: nearest.
        linear: bool,
    },
}

impl Resource {
    /// Size in bytes of the resource's contents (tightly packed for images).
    pub fn bytes(&self) -> u64 {
        match &self.kind {
            ResourceKind::Buffer { bytes, .. } | ResourceKind::Uniform { bytes } => *bytes,
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
            ResourceKind::Uniform { .. } => Elem::U32,
            ResourceKind::Image { format, .. } => format.element(),
        }
    }
}

/// Scalar element types for buffer contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// 32-bit float (`f32`, `float`).
    F32,
    /// 32-bit unsigned integer (`u32`, `uint`), the default.
    U32,
    /// 32-bit signed integer (`i32`, `int`).
    I32,
    /// 16-bit float (`f16`, `half`).
    F16,
    /// 8-bit unsigned integer (`u8`).
    U8,
}

impl Elem {
    /// The element type a scenario's `element` names: `f32`/`float`, `u32`/`uint`, `i32`/`int`,
    /// `f16`/`half` or `u8` (case-sensitive); None for anything else.
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
    /// Size of one element in bytes: 4, 2 (f16) or 1 (u8).
    pub fn bytes(self) -> u64 {
        match self {
            Elem::F32 | Elem::U32 | Elem::I32 => 4,
            Elem::F16 => 2,
            Elem::U8 => 1,
        }
    }
    /// The short name (`f32`, `u32`, ...), as `element` takes it and messages show it.
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

/// Texel formats an image resource may have (`format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// Four 32-bit float channels (`VK_FORMAT_R32G32B32A32_SFLOAT`), 16 bytes a texel.
    Rgba32f,
    /// Four 16-bit float channels, 8 bytes a texel.
    Rgba16f,
    /// One 32-bit float channel, 4 bytes a texel.
    R32f,
    /// Four 8-bit UNORM channels, 4 bytes a texel; the only format a PNG init fills.
    Rgba8,
    /// One 32-bit unsigned integer channel, 4 bytes a texel.
    R32ui,
}

impl ImageFormat {
    /// The format a scenario's `format` names, case-insensitive (`rgba32f`, `rgba16f`, `r32f`,
    /// `rgba8`, `r32ui`); None for anything else.
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
    /// Bytes per texel, all channels together (16, 8 or 4).
    pub fn texel_bytes(self) -> u32 {
        match self {
            ImageFormat::Rgba32f => 16,
            ImageFormat::Rgba16f => 8,
            ImageFormat::R32f | ImageFormat::Rgba8 | ImageFormat::R32ui => 4,
        }
    }
    /// The type of each channel as the contents hold it: f32, f16, u8 (rgba8's UNORM bytes) or u32.
    pub fn element(self) -> Elem {
        match self {
            ImageFormat::Rgba32f | ImageFormat::R32f => Elem::F32,
            ImageFormat::Rgba16f => Elem::F16,
            ImageFormat::Rgba8 => Elem::U8,
            ImageFormat::R32ui => Elem::U32,
        }
    }
}

/// How an image is bound (`usage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageUsage {
    /// A storage image (`image2D`), the default.
    Storage,
    /// A combined image sampler (`sampler2D`), filtered as `linear` says.
    Sampled,
}

/// How a resource's contents start (`init`), per element (per channel for images), converted to the
/// element type.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    /// All zero bytes (the default).
    Zero,
    /// Every element this value (`{ kind = "constant", value = V }`).
    Constant(f64),
    /// Element i is `start + step·i` (defaults 0 and 1).
    Ramp {
        /// Value of element 0.
        start: f64,
        /// Added per element.
        step: f64,
    },
    /// Uniform values from ChaCha8 seeded with `seed`: floats in [min, max), integers in
    /// [ceil(min), floor(max)].
    Random {
        /// The generator's seed (default 1): the same seed gives the same data on every machine.
        seed: u64,
        /// Lower bound (default 0).
        min: f64,
        /// Upper bound (default 1; at least `min`).
        max: f64,
    },
    /// A uniform buffer's typed members (`members`), their bytes encoded when the case loaded.
    Typed {
        /// The members, for `list --details` and the check against the shader's block.
        members: Vec<crate::scenario::block::TypedMember>,
        /// The encoded block, as long as the resource.
        bytes: Vec<u8>,
    },
    /// Contents from a file (`init = { file = "frame.npy" }`), its path resolved against the
    /// scenario's folder and its type and size checked when the scenario loaded.
    File {
        /// The file, resolved against the scenario's folder (templates filled per params case).
        path: PathBuf,
        /// NumPy `.npy` or PNG, by the file's extension.
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
