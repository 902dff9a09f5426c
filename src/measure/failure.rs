//! Why a variant has no timings: a typed status, the reason for its row, and whether the
//! device itself failed (then the runner replaces it). Nothing downstream reads message text.
use crate::results::RowStatus;
use crate::scenario::error::Seg;
use crate::vk::DeviceFault;

#[derive(Debug, Clone)]
pub struct Failure {
    /// Never `Ok`.
    pub status: RowStatus,
    pub reason: String,
    /// The scenario key to point at (preflight errors); `None` for the variant as a whole.
    pub key: Option<Vec<Seg>>,
    /// The device was lost or hung: this variant's row is an error and the device is replaced.
    pub fault: Option<DeviceFault>,
}

impl Failure {
    pub fn new(status: RowStatus, reason: impl Into<String>) -> Self {
        debug_assert!(status != RowStatus::Ok);
        Failure {
            status,
            reason: reason.into(),
            key: None,
            fault: None,
        }
    }

    pub fn at(mut self, key: Option<&[Seg]>) -> Self {
        self.key = key.map(|k| k.to_vec());
        self
    }

    pub fn unsupported(reason: impl Into<String>) -> Self {
        Failure::new(RowStatus::Unsupported, reason)
    }

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
