//! A case's host-side inputs: the initial contents of its resources and the CPU reference's
//! answer. They are made on a worker thread while the previous case runs on the GPU, so the
//! GPU does not sit idle (and drop its clocks) while the host generates data.
use crate::measure::check::Contents;
use crate::scenario::{Case, Init};
use std::time::Instant;

/// A case's host-side inputs, made by a worker thread while the GPU runs the previous case.
pub struct CaseInputs {
    /// Initial contents by resource name (zero-initialized resources only when a reference
    /// needed them: they are cleared on the GPU).
    pub bytes: Contents,
    /// The CPU reference's outputs, or why it failed; None without a reference.
    pub reference: Option<Result<Contents, String>>,
    /// An input that could not be made (a file init that no longer fits): every variant of
    /// the case gets an `error` row saying so.
    pub error: Option<String>,
    /// Host time spent making them, ns.
    pub made_ns: u64,
}

/// The device limits a case's resources are checked against before any input is made: a
/// resource over them gets an `unsupported` row at set-up, so making its contents (64 GiB of
/// ramp for a buffer no device binds) would only exhaust host memory.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `maxStorageBufferRange`.
    pub max_buffer_bytes: u64,
    /// The largest device-local heap.
    pub device_bytes: u64,
}

impl Limits {
    /// The limits of the device `info` describes.
    pub fn of(info: &crate::vk::DeviceInfo) -> Limits {
        Limits {
            max_buffer_bytes: u64::from(info.max_storage_buffer_range),
            device_bytes: info.device_local_bytes,
        }
    }

    /// Whether `r` can exist on the device at all.
    pub fn fits(&self, r: &crate::scenario::Resource) -> bool {
        let buffer = matches!(r.kind, crate::scenario::ResourceKind::Buffer { .. });
        !(buffer && r.bytes() > self.max_buffer_bytes)
            && (self.device_bytes == 0 || r.bytes() <= self.device_bytes)
    }
}

/// Generate the inputs and run the reference (on the calling thread). Nothing is made for a
/// case with a resource over the device's `limits`: its set-up refuses it as unsupported.
pub fn make(case: &Case, limits: Limits) -> CaseInputs {
    let t = Instant::now();
    if !case.resources.iter().all(|r| limits.fits(r)) {
        return CaseInputs {
            bytes: Contents::new(),
            reference: None,
            error: None,
            made_ns: t.elapsed().as_nanos() as u64,
        };
    }
    let mut bytes = Contents::new();
    let mut error = None;
    for r in case.resources.iter().filter(|r| r.init != Init::Zero) {
        match crate::scenario::data::init_bytes(r) {
            Ok(b) => {
                bytes.insert(r.name.clone(), b);
            }
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = error {
        return CaseInputs {
            bytes,
            reference: None,
            error: Some(e),
            made_ns: t.elapsed().as_nanos() as u64,
        };
    }
    let reference = case
        .check
        .as_ref()
        .and_then(|c| c.reference.as_ref())
        .map(|reference| {
            // References see every resource, zero-initialized ones as zeros.
            for r in case.resources.iter().filter(|r| r.init == Init::Zero) {
                bytes.insert(r.name.clone(), vec![0u8; r.bytes() as usize]);
            }
            crate::scenario::refs::external::expected(reference, case, &bytes)
        });
    CaseInputs {
        bytes,
        reference,
        error: None,
        made_ns: t.elapsed().as_nanos() as u64,
    }
}
