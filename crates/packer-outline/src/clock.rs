//! The processor time a file's parses may take.
//!
//! The parser's work budget ([`crate::WORK_PER_BYTE`]) counts operations,
//! but an operation's cost is not bounded: in error recovery inside deep
//! nesting one costs several times a clean one (a 500 KB TypeScript file
//! of nested method bodies the grammar refuses used 5 operations a byte,
//! as clean files do, and 7.6 µs a byte, where clean files take 0.2 to
//! 0.6). So every parse of a file also stops once the thread that parses
//! it has spent [`crate::NANOS_PER_BYTE`] a byte of processor time plus
//! [`crate::NANOS_BASE`]. Processor time, not the wall clock: a loaded
//! machine does not make a file fail; only a file that costs several
//! times what clean ones cost does.

use std::time::Duration;

use crate::{NANOS_BASE, NANOS_PER_BYTE};

/// When a file's parses must stop.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    started: Duration,
    limit: Duration,
}

impl Clock {
    /// Starts the clock for a source of `bytes` bytes.
    pub(crate) fn start(bytes: usize) -> Clock {
        let nanos = (bytes as u64)
            .saturating_mul(NANOS_PER_BYTE)
            .saturating_add(NANOS_BASE);
        Clock {
            started: spent(),
            limit: Duration::from_nanos(nanos),
        }
    }

    /// Whether the time is up.
    pub(crate) fn passed(&self) -> bool {
        spent().saturating_sub(self.started) > self.limit
    }

    /// The limit, in whole milliseconds.
    pub(crate) fn limit_ms(&self) -> u64 {
        u64::try_from(self.limit.as_millis()).unwrap_or(u64::MAX)
    }
}

/// The processor time this thread has spent.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn spent() -> Duration {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(time.tv_sec).unwrap_or(0),
        u32::try_from(time.tv_nsec).unwrap_or(0),
    )
}

/// The time since the first call (no thread clock here: the wall clock).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn spent() -> Duration {
    use std::sync::OnceLock;
    use std::time::Instant;
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed()
}

#[cfg(test)]
mod tests {
    use super::Clock;

    #[test]
    fn the_limit_grows_with_the_source() {
        assert_eq!(Clock::start(0).limit_ms(), crate::NANOS_BASE / 1_000_000);
        assert_eq!(
            Clock::start(1_000_000).limit_ms(),
            (crate::NANOS_BASE + 1_000_000 * crate::NANOS_PER_BYTE) / 1_000_000
        );
        assert!(!Clock::start(0).passed());
    }

    #[test]
    fn processor_time_spent_passes_the_clock() {
        let clock = Clock::start(0);
        let mut x = 0u64;
        while !clock.passed() {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(x > 0);
    }
}
