//! How far long work has got, for a front end that shows it: the
//! documents counted, the files outlined. A pack of a large tree can take
//! seconds; the command line draws a bar on a terminal, the other front
//! ends watch nothing.

use std::sync::Arc;

/// A stage of a pack that reports its progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Each document's entry written and counted.
    Counting,
    /// Source files parsed for their outlines.
    Outlining,
}

impl Stage {
    /// The stage in a few words ("counting", "outlining").
    pub fn name(self) -> &'static str {
        match self {
            Stage::Counting => "counting",
            Stage::Outlining => "outlining",
        }
    }
}

/// What a front end does with progress; called from the threads that do
/// the work, so it must be cheap and thread-safe.
pub trait Watch: Send + Sync {
    /// A stage begins with `total` items to do.
    fn begin(&self, stage: Stage, total: usize);
    /// `done` more items of the current stage are done.
    fn advance(&self, done: usize);
}

/// Where a pack reports its progress; the default reports nowhere.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn Watch>>);

impl Progress {
    /// Progress reported to `watch`.
    pub fn new(watch: Arc<dyn Watch>) -> Progress {
        Progress(Some(watch))
    }

    pub(crate) fn begin(&self, stage: Stage, total: usize) {
        if let Some(watch) = &self.0 {
            watch.begin(stage, total);
        }
    }

    pub(crate) fn advance(&self, done: usize) {
        if let Some(watch) = &self.0 {
            watch.advance(done);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(watched)"
        } else {
            "Progress(none)"
        })
    }
}

/// Every progress is the same setting: a pack does not differ by who
/// watches it.
impl PartialEq for Progress {
    fn eq(&self, _other: &Progress) -> bool {
        true
    }
}

impl Eq for Progress {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Watch for Log {
        fn begin(&self, stage: Stage, total: usize) {
            self.0
                .lock()
                .unwrap()
                .push(format!("{} {total}", stage.name()));
        }
        fn advance(&self, done: usize) {
            self.0.lock().unwrap().push(format!("+{done}"));
        }
    }

    #[test]
    fn a_watch_hears_each_stage_and_step_and_the_default_nothing() {
        let log = Arc::new(Log::default());
        let progress = Progress::new(log.clone());
        progress.begin(Stage::Counting, 2);
        progress.advance(1);
        progress.advance(1);
        Progress::default().begin(Stage::Outlining, 9);
        assert_eq!(*log.0.lock().unwrap(), ["counting 2", "+1", "+1"]);
        assert_eq!(Progress::default(), progress);
    }
}
