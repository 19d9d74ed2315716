//! Stopping work that nobody waits for any more: an MCP client cancels a
//! call, and the pack it started ends early instead of running to the end
//! with nobody to read it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag one thread sets and the packing checks between trials; the
/// default is never set.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// A flag not yet set; its clones share it.
    pub fn new() -> Cancel {
        Cancel(Some(Arc::new(AtomicBool::new(false))))
    }

    /// Sets the flag: the work checking it stops at its next check.
    pub fn cancel(&self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// `Err(Error::Cancelled)` once the flag is set.
    pub fn check(&self) -> Result<(), crate::Error> {
        if self.is_cancelled() {
            Err(crate::Error::Cancelled)
        } else {
            Ok(())
        }
    }
}

/// Every flag is the same setting: a request does not differ by who may
/// cancel it.
impl PartialEq for Cancel {
    fn eq(&self, _other: &Cancel) -> bool {
        true
    }
}

impl Eq for Cancel {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_is_shared_by_its_clones_and_the_default_is_never_set() {
        let flag = Cancel::new();
        let clone = flag.clone();
        assert!(flag.check().is_ok());
        clone.cancel();
        assert!(flag.is_cancelled());
        assert_eq!(flag.check().unwrap_err().code(), "cancelled");
        let never = Cancel::default();
        never.cancel();
        assert!(!never.is_cancelled());
    }
}
