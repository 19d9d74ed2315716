//! Stopping work that nobody waits for any more: an MCP client cancels a
//! call, and the pack it started ends early instead of running to the end
//! with nobody to read it.
//!
//! A pack checks its flag between trials. One count can take seconds too
//! (a hostile tokenizer file's longest pieces tried at each of millions of
//! positions), and counting returns a number, not a result: so work run
//! under [`Cancel::watch`] is stopped from inside by `checkpoint`, which
//! the counting loops call every few thousand steps. It unwinds to
//! `watch` (without the panic hook: nothing is printed), so no count made
//! in part is ever returned or kept in a cache: a cache entry is written
//! only after its count is whole.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
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

thread_local! {
    /// The flag the work on this thread runs under, if any.
    static WATCHED: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// How many steps of a counting loop go between two `checkpoint`s (a
/// thread-local read each: free next to the steps).
pub(crate) const STEPS_PER_CHECKPOINT: usize = 4096;

/// What `checkpoint` unwinds with.
struct Stopped;

impl Cancel {
    /// Runs `work` on this thread with this flag watched by
    /// `checkpoint`: `Err(Error::Cancelled)` if the flag was set before
    /// it ended (what it made so far is dropped), else its result. A panic
    /// of `work`'s own goes on unwinding.
    pub fn watch<T>(&self, work: impl FnOnce() -> T) -> Result<T, crate::Error> {
        if self.0.is_none() {
            return Ok(work());
        }
        let outer = WATCHED.with(|watched| watched.replace(Some(self.clone())));
        let ended = catch_unwind(AssertUnwindSafe(work));
        WATCHED.with(|watched| *watched.borrow_mut() = outer);
        match ended {
            Ok(_) if self.is_cancelled() => Err(crate::Error::Cancelled),
            Ok(value) => Ok(value),
            Err(payload) if payload.is::<Stopped>() => Err(crate::Error::Cancelled),
            Err(payload) => resume_unwind(payload),
        }
    }
}

/// Ends the work [`Cancel::watch`] runs on this thread if its flag is set
/// (unwinding to `watch`); nothing otherwise, and nothing outside `watch`.
pub(crate) fn checkpoint() {
    let stop = WATCHED.with(|watched| watched.borrow().as_ref().is_some_and(Cancel::is_cancelled));
    if stop {
        resume_unwind(Box::new(Stopped));
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

    #[test]
    fn watched_work_stops_at_its_next_checkpoint_and_only_there() {
        let flag = Cancel::new();
        let mut steps = 0;
        let ended = flag.watch(|| {
            loop {
                steps += 1;
                if steps == 10 {
                    flag.cancel();
                }
                checkpoint();
            }
        });
        assert_eq!(ended.unwrap_err().code(), "cancelled");
        assert_eq!(steps, 10);
        // Outside `watch`, and under a flag not set, a checkpoint does
        // nothing; a watch ended leaves the thread unwatched.
        checkpoint();
        assert_eq!(Cancel::new().watch(|| 7).unwrap(), 7);
        checkpoint();
        // Work that ends before it meets a checkpoint, with the flag set,
        // is cancelled all the same.
        let set = Cancel::new();
        set.cancel();
        assert!(set.watch(|| 1).is_err());
        // A panic of the work's own is not taken for a cancel.
        let own = std::panic::catch_unwind(|| Cancel::new().watch(|| panic!("own")));
        assert!(own.is_err());
    }
}
