//! What the benchmarks share: finding the release binary, timing commands
//! side by side, and reading a command's peak memory.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The release `packer` beside the running example's own build (so that
/// `CARGO_TARGET_DIR` and `build.target-dir` are honoured), else under
/// `CARGO_TARGET_DIR` or this repository's `target`.
pub fn packer_binary() -> PathBuf {
    let name = format!("packer{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join(&name)))
        .filter(|path| path.exists());
    beside.unwrap_or_else(|| {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
        target.join("release").join(name)
    })
}

/// Runs each command `runs` times, the commands taking turns (the machine
/// may be shared and noisy), and returns each one's median time.
pub fn race(commands: &[&[&str]], runs: usize) -> Vec<Duration> {
    let mut times = vec![Vec::new(); commands.len()];
    for _ in 0..runs {
        for (i, command) in commands.iter().enumerate() {
            let start = Instant::now();
            let status = Command::new(command[0])
                .args(&command[1..])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            times[i].push(start.elapsed());
            assert!(status.success(), "{command:?} failed");
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[t.len() / 2]
        })
        .collect()
}

/// The peak resident memory of one run of `command`, from `/usr/bin/time`.
pub fn peak(command: &[&str]) -> String {
    let Ok(output) = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .args(command)
        .stdout(Stdio::null())
        .output()
    else {
        return "peak memory not measured".into();
    };
    let kb = peak_kilobytes(&String::from_utf8_lossy(&output.stderr));
    format!("{:.0} MB", kb / 1024.0)
}

/// The peak resident memory `/usr/bin/time -f %M` printed last on a
/// command's standard error, in kilobytes (0 when it did not).
pub fn peak_kilobytes(stderr: &str) -> f64 {
    stderr
        .trim()
        .lines()
        .last()
        .unwrap_or("0")
        .parse()
        .unwrap_or(0.0)
}
