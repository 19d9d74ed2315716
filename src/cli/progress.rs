//! Progress on standard error for work that takes more than a second:
//! files collected, documents counted, files outlined. Drawn only on a
//! terminal and without `--quiet`, from the second it starts; cleared when
//! the work ends, so what follows (the report, the notes) starts on a
//! clean line.

use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use packer::progress::{Stage, Watch};

/// How long work runs before its progress is drawn.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// The bar of one command, shared by the threads that report to it.
pub struct Bar(Option<Arc<Shared>>);

struct Shared {
    started: Instant,
    /// The bar on the screen, once the work has taken a second; taken
    /// away (and cleared) by [`Bar::finish`], so that a later stage draws
    /// a new one below what was printed in between.
    drawn: Mutex<Option<ProgressBar>>,
    /// The stage under way and its total (`None`: collecting, no total).
    stage: Mutex<Option<(Stage, u64)>>,
    done: AtomicU64,
}

impl Bar {
    /// A bar on standard error when it is a terminal and `quiet` is off;
    /// else one that draws nothing.
    pub fn new(quiet: bool) -> Bar {
        if quiet || !io::stderr().is_terminal() {
            return Bar(None);
        }
        Bar(Some(Arc::new(Shared {
            started: Instant::now(),
            drawn: Mutex::new(None),
            stage: Mutex::new(None),
            done: AtomicU64::new(0),
        })))
    }

    /// What the pack reports its stages to.
    pub fn progress(&self) -> packer::Progress {
        match &self.0 {
            Some(shared) => packer::Progress::new(shared.clone()),
            None => packer::Progress::default(),
        }
    }

    /// What a collection reports the files it has seen to.
    pub fn collecting(&self) -> impl FnMut(usize) + use<> {
        let shared = self.0.clone();
        move |seen| {
            if let Some(shared) = &shared {
                shared.done.store(seen as u64, Ordering::Relaxed);
                shared.draw();
            }
        }
    }

    /// Clears the bar, if it was drawn.
    pub fn finish(&self) {
        if let Some(shared) = &self.0
            && let Some(bar) = shared
                .drawn
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
        {
            bar.finish_and_clear();
        }
    }
}

impl Shared {
    /// Draws the current position, once the work has taken a second.
    fn draw(&self) {
        let done = self.done.load(Ordering::Relaxed);
        if self.started.elapsed() < QUIET_FOR {
            return;
        }
        let mut drawn = self.drawn.lock().unwrap_or_else(|p| p.into_inner());
        let bar = drawn.get_or_insert_with(|| {
            // Shaped unseen, then shown: its first frame is its own.
            let bar = ProgressBar::hidden();
            shape(&bar, *self.stage.lock().unwrap_or_else(|p| p.into_inner()));
            bar.set_position(done);
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar
        });
        bar.set_position(done);
    }
}

/// The bar's look for `stage`: a count of files while collecting, a bar
/// of a known total otherwise.
fn shape(bar: &ProgressBar, stage: Option<(Stage, u64)>) {
    match stage {
        None => {
            bar.set_style(
                ProgressStyle::with_template("{spinner} collecting: {pos} files")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(100));
        }
        Some((stage, total)) => {
            bar.disable_steady_tick();
            bar.set_style(
                ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_message(stage.name());
            bar.set_length(total);
        }
    }
}

impl Watch for Shared {
    fn begin(&self, stage: Stage, total: usize) {
        *self.stage.lock().unwrap_or_else(|p| p.into_inner()) = Some((stage, total as u64));
        self.done.store(0, Ordering::Relaxed);
        if let Some(bar) = &*self.drawn.lock().unwrap_or_else(|p| p.into_inner()) {
            bar.set_position(0);
            shape(bar, Some((stage, total as u64)));
        }
    }

    fn advance(&self, done: usize) {
        self.done.fetch_add(done as u64, Ordering::Relaxed);
        self.draw();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_bar_reports_nowhere() {
        let bar = Bar::new(true);
        assert!(bar.0.is_none());
        assert_eq!(format!("{:?}", bar.progress()), "Progress(none)");
        let mut collecting = bar.collecting();
        collecting(10);
        bar.finish();
    }

    fn started(at: Instant) -> Shared {
        Shared {
            started: at,
            drawn: Mutex::new(None),
            stage: Mutex::new(None),
            done: AtomicU64::new(0),
        }
    }

    #[test]
    fn a_bar_is_drawn_after_the_first_second_and_cleared_at_the_end() {
        // Work that began now (the clock cannot pass a second here: it
        // started an hour from now) draws nothing.
        let early = started(Instant::now() + Duration::from_secs(3600));
        early.begin(Stage::Counting, 3);
        early.advance(2);
        assert!(early.drawn.lock().unwrap().is_none());
        // Work that began two seconds ago draws its stage and position
        // (on a terminal; standard error here is not one, so unseen).
        let Some(two_ago) = Instant::now().checked_sub(Duration::from_secs(2)) else {
            return;
        };
        let late = Arc::new(started(two_ago));
        late.begin(Stage::Outlining, 5);
        late.advance(3);
        let bar = late.drawn.lock().unwrap().clone().expect("drawn");
        assert_eq!((bar.position(), bar.length()), (3, Some(5)));
        assert_eq!(bar.message(), "outlining");
        Bar(Some(late.clone())).finish();
        assert!(late.drawn.lock().unwrap().is_none());
    }
}
