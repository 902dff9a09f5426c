//! Why a variant has no timings: a typed status, the reason for its row, and whether the
//! device itself failed (then the runner replaces it). Nothing downstream reads message text.
use crate::results::RowStatus;
use crate::scenario::error::Seg;
use crate::vk::DeviceFault;

/// Why a variant has no timings: its row's status and reason, where in the scenario to point, and
/// whether the device failed.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Never `Ok`.
    pub status: RowStatus,
    /// The row's `reason` column: a sentence saying what went wrong.
    pub reason: String,
    /// The scenario key to point at (preflight errors); `None` for the variant as a whole.
    pub key: Option<Vec<Seg>>,
    /// The device was lost or hung: this variant's row is an error and the device is replaced.
    pub fault: Option<DeviceFault>,
}

impl Failure {
    /// A failure of `status` (never `Ok`) with `reason`, pointing at no key and with no device
    /// fault.
    pub fn new(status: RowStatus, reason: impl Into<String>) -> Self {
        debug_assert!(status != RowStatus::Ok);
        Failure {
            status,
            reason: reason.into(),
            key: None,
            fault: None,
        }
    }

    /// Point the failure at the scenario key `key` (None: the variant as a whole).
    pub fn at(mut self, key: Option<&[Seg]>) -> Self {
        self.key = key.map(|k| k.to_vec());
        self
    }

    /// An `unsupported` row: the device lacks something the variant needs.
    pub fn unsupported(reason: impl Into<String>) -> Self {
        Failure::new(RowStatus::Unsupported, reason)
    }

    /// An `error` row: something failed (compile, pipeline, check, submission).
    pub fn error(reason: impl Into<String>) -> Self {
        Failure::new(RowStatus::Error, reason)
    }

    /// An error from the device: a lost or hung device is recognised by type
    /// (`vk::DeviceFault`), whatever the message says.
    pub fn from_device(e: anyhow::Error) -> Self {
        Failure {
            status: RowStatus::Error,
            reason: format!("{e:#}"),
            key: None,
            fault: crate::vk::device_fault(&e),
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::from_device(e)
    }
}
