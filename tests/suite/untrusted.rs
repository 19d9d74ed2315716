//! Untrusted trees (see docs/security.md): a checkout whose configuration
//! names programs, a `.git` that leads elsewhere, files and directories
//! swapped for links while packer reads, FIFOs and devices, and
//! `--payload-out` pointed at a file the run reads. Each attack has its
//! test; each test checks what the attack was after (a marker file, bytes
//! from outside, a changed `.git/`, a replaced file, a hang).
#![cfg(unix)]

use crate::common::{self, git};

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use packer_collect::{self as collect, CollectOptions};

const MARKER: &str = "OUTSIDE-THE-ROOT-7f3a9c";

fn write(path: &Path, content: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// A checkout at `dir` with one commit, a GitHub remote, a committed
/// `.gitattributes` that routes every file through filter `x`, and an
/// uncommitted change (so `git status` has a file to filter).
fn checkout(dir: &Path, remote: &str) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    write(&dir.join("a.md"), "# a\n");
    write(&dir.join("src/lib.rs"), "pub fn f() {}\n");
    write(&dir.join(".gitattributes"), "* filter=x diff=x\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "one"]);
    git(dir, &["remote", "add", "origin", remote]);
    write(&dir.join("a.md"), "# a, changed\n");
}

/// Every file under `.git` with its bytes, to compare before and after.
fn snapshot(git_dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![git_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(path);
            } else {
                let bytes = if kind.is_symlink() {
                    fs::read_link(&path)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes()
                } else {
                    fs::read(&path).unwrap()
                };
                files.insert(path, bytes);
            }
        }
    }
    files
}

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn packer_in(cwd: &Path, args: &[&str]) -> Run {
    let output = common::packer()
        .current_dir(cwd)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The ways a checkout's own configuration can name a program that `git`
/// would run while packer asks it about the checkout. Each writes
/// `pwned-NAME` beside the checkout when it runs.
fn hostile_configurations(base: &Path) -> Vec<(&'static str, String)> {
    let marker = |name: &str| base.join(format!("pwned-{name}")).display().to_string();
    vec![
        (
            "fsmonitor",
            format!(
                "[core]\n\tfsmonitor = \"echo x > {}; false\"\n",
                marker("fsmonitor")
            ),
        ),
        (
            "filter-clean",
            format!(
                "[filter \"x\"]\n\tclean = \"sh -c 'echo x > {}; cat'\"\n\tsmudge = cat\n\trequired = true\n",
                marker("filter-clean")
            ),
        ),
        (
            "filter-process",
            format!(
                "[filter \"x\"]\n\tprocess = \"sh -c 'echo x > {}'\"\n\trequired = true\n",
                marker("filter-process")
            ),
        ),
        (
            "textconv",
            format!(
                "[diff \"x\"]\n\ttextconv = \"sh -c 'echo x > {}; cat'\"\n[diff]\n\texternal = \"sh -c 'echo x > {}'\"\n",
                marker("textconv"),
                marker("textconv")
            ),
        ),
        (
            "hooks-path",
            // Every hook git might run, in a directory the tree controls.
            format!("[core]\n\thooksPath = {}\n", base.join("hooks").display()),
        ),
        (
            "include",
            format!(
                "[include]\n\tpath = {}\n",
                base.join("included.cfg").display()
            ),
        ),
        (
            "pager-and-editor",
            format!(
                "[core]\n\tpager = \"sh -c 'echo x > {}'\"\n\teditor = \"sh -c 'echo x > {}'\"\n[pager]\n\tstatus = true\n\tlog = true\n",
                marker("pager-and-editor"),
                marker("pager-and-editor")
            ),
        ),
        (
            "alias-and-ssh",
            format!(
                "[core]\n\tsshCommand = \"sh -c 'echo x > {}'\"\n\tgitProxy = \"sh -c 'echo x > {}'\"\n[alias]\n\tstatus = \"!echo x > {}\"\n\tlog = \"!echo x > {}\"\n",
                marker("alias-and-ssh"),
                marker("alias-and-ssh"),
                marker("alias-and-ssh"),
                marker("alias-and-ssh")
            ),
        ),
    ]
}

fn hooks(base: &Path) {
    let hooks = base.join("hooks");
    fs::create_dir_all(&hooks).unwrap();
    for hook in [
        "post-index-change",
        "post-checkout",
        "pre-auto-gc",
        "reference-transaction",
        "fsmonitor-watchman",
    ] {
        let path = hooks.join(hook);
        write(
            &path,
            &format!("#!/bin/sh\necho x > {}/pwned-hooks-path\n", base.display()),
        );
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn markers(base: &Path) -> Vec<String> {
    fs::read_dir(base)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("pwned"))
        .collect()
}

#[test]
fn no_program_named_by_a_checkout_runs_and_git_is_left_byte_identical() {
    let base = tempfile::tempdir().unwrap();
    let base = base.path();
    hooks(base);
    write(
        &base.join("included.cfg"),
        &format!(
            "[core]\n\tfsmonitor = \"echo x > {}/pwned-include; false\"\n",
            base.display()
        ),
    );
    for (name, config) in hostile_configurations(base) {
        let repo = base.join(format!("repo-{name}"));
        checkout(&repo, "https://github.com/owner/repo.git");
        // The same hooks in the checkout's own hooks directory, and at the
        // top of the work tree (where an empty hooks path would look).
        for path in ["post-index-change", "post-checkout"]
            .into_iter()
            .flat_map(|hook| [repo.join(".git/hooks").join(hook), repo.join(hook)])
        {
            write(
                &path,
                &format!("#!/bin/sh\necho x > {}/pwned-git-hooks\n", base.display()),
            );
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let mut text = fs::read_to_string(repo.join(".git/config")).unwrap();
        text.push_str(&config);
        fs::write(repo.join(".git/config"), text).unwrap();
        let before = snapshot(&repo.join(".git"));
        let dir = repo.display().to_string();
        let run = packer_in(
            base,
            &[
                "pack",
                "--dir",
                &dir,
                "--budget",
                "2000",
                "--git-order",
                "--tree",
            ],
        );
        assert_eq!(run.status, 0, "{name}: {}", run.stderr);
        // The checkout was still read: urls pin its commit.
        assert!(
            run.stdout.contains("https://github.com/owner/repo/blob/"),
            "{name}: {}",
            run.stdout
        );
        assert!(
            run.stderr.contains("uncommitted changes"),
            "{name}: {}",
            run.stderr
        );
        let run = packer_in(base, &["collect", &dir, "--git-order"]);
        assert_eq!(run.status, 0, "{name}: {}", run.stderr);
        let options = CollectOptions {
            git_order: true,
            ..CollectOptions::default()
        };
        collect::collect(&repo, &options, |_| {}).unwrap();
        assert_eq!(markers(base), Vec::<String>::new(), "{name}");
        assert!(
            snapshot(&repo.join(".git")) == before,
            "{name}: .git changed"
        );
    }
}

#[test]
fn git_itself_would_have_run_the_fsmonitor() {
    // The attack is real: the same checkout makes a plain `git status` run
    // the program, so the test above can fail.
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    checkout(&repo, "https://github.com/owner/repo.git");
    let marker = base.path().join("pwned");
    git(
        &repo,
        &[
            "config",
            "core.fsmonitor",
            &format!("echo x > {}; false", marker.display()),
        ],
    );
    let _ = Command::new("git")
        .current_dir(&repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["status", "--porcelain"])
        .output()
        .unwrap();
    assert!(marker.exists());
}

#[test]
fn a_git_file_commondir_alternates_or_parent_repository_is_never_read() {
    let base = tempfile::tempdir().unwrap();
    let base = base.path();
    let outside = base.join("outside");
    checkout(&outside, "https://github.com/outsider/secret-repo.git");
    git(
        &outside,
        &[
            "config",
            "core.fsmonitor",
            &format!("echo x > {}/pwned-outside; false", base.display()),
        ],
    );
    let outside_git = outside.join(".git").canonicalize().unwrap();
    let outside_before = snapshot(&outside_git);

    // A `.git` file pointing at the outside repository.
    let linked = base.join("linked");
    write(&linked.join("a.md"), "# a\n");
    write(
        &linked.join(".git"),
        &format!("gitdir: {}\n", outside_git.display()),
    );
    // A `.git` directory whose commondir points outside.
    let common = base.join("common");
    checkout(&common, "https://github.com/owner/common.git");
    write(
        &common.join(".git/commondir"),
        &format!("{}\n", outside_git.display()),
    );
    // Object alternates outside.
    let alternates = base.join("alternates");
    checkout(&alternates, "https://github.com/owner/alternates.git");
    write(
        &alternates.join(".git/objects/info/alternates"),
        &format!("{}\n", outside_git.join("objects").display()),
    );
    // A `.git` that is a link to the outside repository.
    let symlinked = base.join("symlinked");
    write(&symlinked.join("a.md"), "# a\n");
    std::os::unix::fs::symlink(&outside_git, symlinked.join(".git")).unwrap();
    // A directory inside the outside repository (a root in a parent).
    let inner = outside.join("src");

    for dir in [&linked, &common, &alternates, &symlinked, &inner] {
        let shown = dir.display().to_string();
        let run = packer_in(
            base,
            &["pack", "--dir", &shown, "--budget", "2000", "--git-order"],
        );
        // No checkout of its own: documents carry their paths, and nothing
        // of the outside repository is used.
        assert_eq!(run.status, 0, "{shown}: {}", run.stderr);
        assert!(!run.stdout.contains("outsider"), "{shown}");
        assert!(!run.stdout.contains("\"url\""), "{shown}");
        assert!(!run.stderr.contains("uncommitted"), "{shown}");
        let run = packer_in(
            base,
            &[
                "pack",
                "--dir",
                &shown,
                "--budget",
                "2000",
                "--git-order",
                "--base-url",
                "https://example.com/",
            ],
        );
        assert_eq!(run.status, 0, "{shown}: {}", run.stderr);
        assert!(!run.stdout.contains("outsider"), "{shown}");
        assert!(!run.stderr.contains("uncommitted"), "{shown}");
        let collection = collect::collect(dir, &CollectOptions::default(), |_| {}).unwrap();
        assert!(collection.checkout.is_none(), "{shown}");
        assert!(
            collection
                .documents
                .iter()
                .all(|d| d.url.is_none() && d.path.as_deref() == Some(d.id.as_str())),
            "{shown}"
        );
    }
    assert_eq!(markers(base), Vec::<String>::new());
    assert!(snapshot(&outside_git) == outside_before);
}

/// Swaps two paths (a file or directory and a link) back and forth with
/// `renameat2(RENAME_EXCHANGE)` until told to stop.
fn swapper(a: PathBuf, b: PathBuf, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).unwrap();
    }
}

/// A tree whose file `f.txt` and directory `sub/` are swapped, in a loop,
/// with links to a file and a directory outside holding the marker, a
/// FIFO, and `/dev/zero`.
struct SwapTree {
    _base: tempfile::TempDir,
    root: PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl SwapTree {
    fn new() -> SwapTree {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("root");
        let outside = base.path().join("outside");
        write(&outside.join("f.txt"), &format!("{MARKER} file\n"));
        write(
            &outside.join("outside-only.txt"),
            &format!("{MARKER} in a directory\n"),
        );
        write(&root.join("f.txt"), "inside file\n");
        write(&root.join("sub/g.txt"), "inside directory\n");
        write(&root.join("z.txt"), "inside too\n");
        write(&root.join("readme.md"), "# inside\n");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            base.path().join("fifo"),
            rustix::fs::Mode::RWXU,
        )
        .unwrap();
        // The links live outside the walked tree and are swapped in.
        let links = base.path().join("links");
        fs::create_dir_all(&links).unwrap();
        std::os::unix::fs::symlink(outside.join("f.txt"), links.join("f-link")).unwrap();
        std::os::unix::fs::symlink(&outside, links.join("sub-link")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", links.join("zero-link")).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let pairs = [
            (root.join("f.txt"), links.join("f-link")),
            (root.join("sub"), links.join("sub-link")),
            (root.join("z.txt"), links.join("zero-link")),
            (root.join("readme.md"), base.path().join("fifo")),
        ];
        let threads = pairs
            .into_iter()
            .map(|(a, b)| {
                let stop = stop.clone();
                std::thread::spawn(move || swapper(a, b, stop))
            })
            .collect();
        SwapTree {
            _base: base,
            root,
            stop,
            threads,
        }
    }
}

impl Drop for SwapTree {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

#[test]
fn files_and_directories_swapped_for_links_while_collecting_leak_nothing() {
    let tree = SwapTree::new();
    let options = CollectOptions {
        base_url: Some(url::Url::parse("https://example.com/").unwrap()),
        ..CollectOptions::default()
    };
    let deadline = Instant::now() + Duration::from_secs(6);
    let (mut runs, mut collected, mut changed) = (0, 0, 0);
    while runs < 5_000 && Instant::now() < deadline {
        let collection = collect::collect(&tree.root, &options, |_| {}).unwrap();
        for document in &collection.documents {
            assert!(
                !document.content.contains(MARKER),
                "run {runs}: {}",
                document.id
            );
            assert!(document.content.starts_with("inside") || document.content == "# inside\n");
        }
        for id in collection
            .skipped
            .iter()
            .map(|(id, _)| id)
            .chain(collection.documents.iter().map(|d| &d.id))
        {
            assert!(!id.contains("outside-only"), "{id}");
        }
        collected += collection.documents.len();
        changed += collection.changed;
        runs += 1;
    }
    eprintln!("{runs} collections, {collected} documents, {changed} files changed while read");
    assert!(runs >= 100, "{runs}");
}

#[test]
fn the_binary_under_a_swapping_loop_leaks_nothing_and_never_hangs() {
    let tree = SwapTree::new();
    let root = tree.root.display().to_string();
    // A fixed number of runs, each stopped as hung only far past any
    // honest run: no assertion is about time, so a loaded machine passes.
    for run in 0..20 {
        let ended = crate::attacks::bounded(
            tree.root.parent().unwrap(),
            &[
                "pack",
                "--dir",
                &root,
                "--budget",
                "5000",
                "--base-url",
                "https://example.com/",
                "--format",
                "payload",
            ],
            b"",
        );
        assert_eq!(ended.status, Some(0), "{}", ended.stderr);
        assert!(!ended.stdout.contains(MARKER), "run {run}");
        assert!(!ended.stderr.contains(MARKER), "run {run}");
    }
}

#[test]
fn a_fifo_or_device_as_tokenizer_is_refused_at_once() {
    let base = tempfile::tempdir().unwrap();
    let fifo = base.path().join("tokenizer.json");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::RWXU).unwrap();
    write(&base.path().join("a.txt"), "hello\n");
    for tokenizer in [
        fifo.display().to_string(),
        "/dev/zero".into(),
        base.path().display().to_string(),
    ] {
        // A blocking open of the FIFO would hang: the bounded run fails
        // then, whatever the machine's load.
        let run = crate::attacks::bounded(
            base.path(),
            &["count", "--tokenizer", &tokenizer, "a.txt"],
            b"",
        );
        assert_eq!(run.status, Some(3), "{}", run.stderr);
        assert!(
            run.stderr.contains(
                "error[unreadable-tokenizer]: the --tokenizer file is not a regular file"
            ),
            "{}",
            run.stderr
        );
    }
}

/// A fixture file for `--payload-out` tests.
fn fixture(dir: &Path) -> PathBuf {
    let path = dir.join("fixture.json");
    write(
        &path,
        r#"{"documents":[{"id":"a","url":"https://example.com/a","format":"text","content":"hello","truncated":false}]}"#,
    );
    path
}

#[test]
fn payload_out_never_replaces_a_file_the_run_reads() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path();
    let input = fixture(dir);
    let original = fs::read(&input).unwrap();
    fs::hard_link(&input, dir.join("hard.json")).unwrap();
    std::os::unix::fs::symlink(&input, dir.join("soft.json")).unwrap();
    for out in ["fixture.json", "./fixture.json", "hard.json", "soft.json"] {
        let run = packer_in(
            dir,
            &[
                "pack",
                "fixture.json",
                "--budget",
                "100",
                "--payload-out",
                out,
            ],
        );
        assert_eq!(run.status, 2, "{out}: {}", run.stderr);
        assert!(
            run.stderr.contains("error[payload-out-is-input]"),
            "{}",
            run.stderr
        );
        assert_eq!(fs::read(&input).unwrap(), original, "{out}");
    }

    // In --dir mode: a collected file, the --files-from list, the tokenizer.
    let tree = dir.join("tree");
    write(&tree.join("README.md"), "# readme\n");
    write(&tree.join("src/a.rs"), "fn a() {}\n");
    write(&dir.join("list.txt"), "README.md\nsrc/a.rs\n");
    fs::hard_link(tree.join("src/a.rs"), dir.join("a-alias.rs")).unwrap();
    let tokenizer = dir.join("tok.json");
    let gz =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokenizers/tekken_240718.json.gz");
    let mut json = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(fs::File::open(gz).unwrap()),
        &mut json,
    )
    .unwrap();
    fs::write(&tokenizer, &json).unwrap();
    let cases: [(&str, &[&str]); 4] = [
        ("tree/README.md", &[]),
        ("a-alias.rs", &[]),
        ("list.txt", &["--files-from", "list.txt"]),
        ("tok.json", &["--tokenizer", "tok.json"]),
    ];
    for (out, extra) in cases {
        let before = fs::read(dir.join(out)).unwrap();
        let mut args = vec![
            "pack",
            "--dir",
            "tree",
            "--budget",
            "5000",
            "--base-url",
            "https://example.com/",
            "--payload-out",
            out,
        ];
        args.extend_from_slice(extra);
        let run = packer_in(dir, &args);
        assert_eq!(run.status, 2, "{out}: {}", run.stderr);
        assert!(
            run.stderr.contains("error[payload-out-is-input]"),
            "{out}: {}",
            run.stderr
        );
        assert_eq!(fs::read(dir.join(out)).unwrap(), before, "{out}");
    }
}

/// `packer pack fixture.json --budget BUDGET --payload-out OUT` in `dir`.
fn pack_to(dir: &Path, budget: &str, out: &str) -> Run {
    packer_in(
        dir,
        &[
            "pack",
            "fixture.json",
            "--budget",
            budget,
            "--payload-out",
            out,
        ],
    )
}

#[test]
fn payload_out_is_written_atomically_and_never_blocks_on_a_fifo() {
    use std::os::unix::fs::MetadataExt;
    let base = tempfile::tempdir().unwrap();
    let dir = base.path();
    fixture(dir);
    // An existing file is replaced by a new one (a rename), a link to a
    // file keeps being a link and the file it names gets the payload.
    write(&dir.join("out.txt"), "old\n");
    std::os::unix::fs::symlink("out.txt", dir.join("link.txt")).unwrap();
    let inode = fs::metadata(dir.join("out.txt")).unwrap().ino();
    let run = pack_to(dir, "100", "link.txt");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        fs::symlink_metadata(dir.join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let written = fs::read_to_string(dir.join("out.txt")).unwrap();
    assert!(written.contains("hello"), "{written}");
    assert_ne!(fs::metadata(dir.join("out.txt")).unwrap().ino(), inode);
    // No temporary file is left behind.
    let names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with(".packer-payload-")),
        "{names:?}"
    );
    // A failed run leaves the old file as it was.
    let run = pack_to(dir, "1", "out.txt");
    assert_ne!(run.status, 0);
    assert_eq!(fs::read_to_string(dir.join("out.txt")).unwrap(), written);
    // A FIFO that nobody reads: an error at once, not a hang.
    let fifo = dir.join("fifo");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::RWXU).unwrap();
    let started = Instant::now();
    let run = pack_to(dir, "100", "fifo");
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("error[payload-out-failed]"),
        "{}",
        run.stderr
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // A FIFO with a reader gets the payload.
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || fs::read_to_string(fifo).unwrap()
    });
    let run = loop {
        let run = packer_in(
            dir,
            &[
                "pack",
                "fixture.json",
                "--budget",
                "100",
                "--payload-out",
                "fifo",
            ],
        );
        if run.status == 0 || started.elapsed() > Duration::from_secs(10) {
            break run;
        }
    };
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(reader.join().unwrap().contains("hello"));
}

use std::os::unix::fs::FileTypeExt;

#[test]
fn a_device_as_input_is_named_without_a_size() {
    let base = tempfile::tempdir().unwrap();
    let run = packer_in(
        base.path(),
        &["pack", "/dev/zero", "--max-input-bytes", "100"],
    );
    assert_eq!(run.status, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the input is larger than the limit of 100 bytes"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_long_files_from_list_names_the_collect_flag() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path();
    write(&dir.join("tree/a.txt"), "a\n");
    write(&dir.join("list.txt"), &"a.txt\n".repeat(100));
    let run = packer_in(
        dir,
        &[
            "collect",
            "tree",
            "--base-url",
            "https://example.com/",
            "--files-from",
            "list.txt",
            "--max-total-bytes",
            "50",
        ],
    );
    assert_eq!(run.status, 3, "{}", run.stderr);
    assert!(run.stderr.contains("--max-total-bytes"), "{}", run.stderr);
    assert!(!run.stderr.contains("--max-input-bytes"), "{}", run.stderr);
}

#[test]
fn files_in_unreadable_directories_are_reported() {
    if rustix::process::geteuid().is_root() {
        // Permissions do not stop root: the walk reads the directory.
        eprintln!("skipped: running as root");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let dir = base.path();
    write(&dir.join("tree/a.txt"), "a\n");
    write(&dir.join("tree/closed/b.txt"), "b\n");
    fs::set_permissions(dir.join("tree/closed"), fs::Permissions::from_mode(0o000)).unwrap();
    let run = packer_in(
        dir,
        &["collect", "tree", "--base-url", "https://example.com/"],
    );
    fs::set_permissions(dir.join("tree/closed"), fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("skipped closed/: cannot be read"),
        "{}",
        run.stderr
    );
}

/// `packer mcp --root ROOT`, spoken to in raw JSON-RPC lines.
struct Mcp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Mcp {
    fn start(root: &Path) -> Mcp {
        use std::io::BufRead;
        let mut child = common::packer()
            .args(["mcp", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Mcp {
            child,
            stdin,
            stdout,
        };
        mcp.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#);
        let mut line = String::new();
        mcp.stdout.read_line(&mut line).unwrap();
        mcp.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        mcp
    }

    fn send(&mut self, line: &str) {
        use std::io::Write;
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Calls `tool` with `arguments` and returns the whole answer line.
    fn call(&mut self, id: u64, tool: &str, arguments: &str) -> String {
        use std::io::BufRead;
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
        ));
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        assert!(line.contains(&format!(r#""id":{id}"#)), "{line}");
        line
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn mcp_under_a_swapping_loop_leaks_nothing_and_never_hangs() {
    let tree = SwapTree::new();
    // The root is the directory above the tree, so that `root/sub` swapped
    // for a link to `outside` is also tried as the path itself.
    let root = tree.root.clone();
    let mut mcp = Mcp::start(&root);
    let deadline = Instant::now() + Duration::from_secs(8);
    let (mut calls, mut refused) = (0u64, 0);
    while calls < 2_000 && Instant::now() < deadline {
        let path = if calls % 2 == 0 { "." } else { "sub" };
        let started = Instant::now();
        let answer = mcp.call(
            calls + 1,
            "pack_directory",
            &format!(r#"{{"path":"{path}","budget":5000}}"#),
        );
        assert!(!answer.contains(MARKER), "call {calls}: {answer}");
        assert!(!answer.contains("outside-only"), "call {calls}: {answer}");
        assert!(started.elapsed() < Duration::from_secs(5));
        refused += usize::from(answer.contains("path-outside-root"));
        calls += 1;
    }
    eprintln!("{calls} calls, {refused} refused as outside the root");
    assert!(calls >= 50, "{calls}");
}

#[test]
fn mcp_refuses_a_fifo_tokenizer_at_once_and_a_link_leading_out() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    write(&root.join("a.txt"), "hello\n");
    write(&base.path().join("outside.json"), "{}");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("fifo.json"),
        rustix::fs::Mode::RWXU,
    )
    .unwrap();
    std::os::unix::fs::symlink(base.path().join("outside.json"), root.join("out.json")).unwrap();
    let mut mcp = Mcp::start(&root);
    let started = Instant::now();
    let answer = mcp.call(
        1,
        "count_tokens",
        r#"{"text":"hi","tokenizer":"fifo.json"}"#,
    );
    assert!(answer.contains("unreadable-tokenizer"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let answer = mcp.call(2, "count_tokens", r#"{"text":"hi","tokenizer":"out.json"}"#);
    assert!(answer.contains("path-outside-root"), "{answer}");
    // An unknown method is not echoed back, however long.
    let method = "M".repeat(100_000);
    mcp.send(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"{method}"}}"#
    ));
    let mut line = String::new();
    std::io::BufRead::read_line(&mut mcp.stdout, &mut line).unwrap();
    assert!(
        line.contains("-32601") && line.len() < 300,
        "{}",
        line.len()
    );
}

#[test]
fn rule_files_that_are_fifos_devices_or_links_out_are_not_read() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    write(&root.join("a.txt"), "a\n");
    write(&root.join("kept.log"), "kept\n");
    write(&root.join("sub/b.txt"), "b\n");
    write(&root.join("sub/c.tmp"), "c\n");
    write(&root.join("sub/.gitignore"), "*.tmp\n");
    write(&root.join("deep/d.txt"), "d\n");
    // Rules outside the tree that would hide a.txt if they were read.
    write(&base.path().join("outside-rules"), "a.txt\n");
    write(&base.path().join(".gitignore"), "a.txt\n*.log\n");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join(".gitignore"),
        rustix::fs::Mode::RWXU,
    )
    .unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("sub/.ignore"),
        rustix::fs::Mode::RWXU,
    )
    .unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("deep/.gitignore")).unwrap();
    std::os::unix::fs::symlink(base.path().join("outside-rules"), root.join("deep/.ignore"))
        .unwrap();
    let started = Instant::now();
    let options = CollectOptions {
        base_url: Some(url::Url::parse("https://example.com/").unwrap()),
        ..CollectOptions::default()
    };
    let collection = collect::collect(&root, &options, |_| {}).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    let ids: Vec<&str> = collection.documents.iter().map(|d| d.id.as_str()).collect();
    // The regular .gitignore in sub/ still applies; nothing else is rules.
    // (Text files are documentation in the value order, the log is not.)
    assert_eq!(ids, ["a.txt", "deep/d.txt", "sub/b.txt", "kept.log"]);
    let run = packer_in(
        base.path(),
        &["collect", "root", "--base-url", "https://example.com/"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// `length` characters of `alphabet`, pseudo-random from `seed`, so no
/// complete fake secret stands in this file.
fn noise(alphabet: &str, length: usize, seed: u64) -> String {
    let alphabet: Vec<char> = alphabet.chars().collect();
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..length)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            alphabet[((state >> 33) % alphabet.len() as u64) as usize]
        })
        .collect()
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

#[test]
fn secrets_in_names_contents_and_credential_files_stay_out_and_unprinted() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    let token = format!("ghp_{}", noise(ALNUM, 36, 1));
    let password = format!("Xk9{}", noise(ALNUM, 12, 2));
    let url = format!("postgres://admin:{password}@db.internal:5432/app");
    let gitlab = format!("glft-{}", noise(ALNUM, 20, 3));
    let files: Vec<(String, String)> = vec![
        ("README.md".into(), "# a project\n".into()),
        (
            format!("tokens/{token}.txt"),
            "a name that is a secret\n".into(),
        ),
        (
            format!("{token}/inner.txt"),
            "a directory named by a secret\n".into(),
        ),
        ("config/db.py".into(), format!("DATABASE = \"{url}\"\n")),
        ("ci/gitlab.yml".into(), format!("token: {gitlab}\n")),
        (".env".into(), "API=1\n".into()),
        (".env.local".into(), "SECRET=plain\n".into()),
        (".env.example".into(), "SECRET=\n".into()),
        (
            ".netrc".into(),
            "machine example.com login a password b\n".into(),
        ),
        (".pgpass".into(), "localhost:5432:*:a:b\n".into()),
        (".npmrc".into(), "//registry.example.com/:_auth=x\n".into()),
        (".pypirc".into(), "[pypi]\npassword = x\n".into()),
        (
            ".git-credentials".into(),
            "https://a:b@example.com\n".into(),
        ),
        (
            ".aws/credentials".into(),
            "[default]\naws_secret_access_key = x\n".into(),
        ),
        ("keys/id_ed25519".into(), "not a key at all\n".into()),
        ("keys/deploy.ppk".into(), "not a key either\n".into()),
    ];
    for (path, content) in &files {
        write(&root.join(path), content);
    }
    let shown = root.display().to_string();
    let run = packer_in(
        base.path(),
        &[
            "pack",
            "--dir",
            &shown,
            "--budget",
            "5000",
            "--hidden",
            "--base-url",
            "https://example.com/",
            "--tree",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    for secret in [&token, &password, &gitlab] {
        assert!(
            !run.stdout.contains(secret.as_str()),
            "{secret} in the output"
        );
        assert!(!run.stderr.contains(secret.as_str()), "{secret} on stderr");
    }
    let output: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let mut selected: Vec<&str> = output["selectedIds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    selected.sort_unstable();
    assert_eq!(selected, [".env.example", "README.md", "tree:/"]);
    for skipped in [
        "skipped [secret]/inner.txt: contains-secret (rule github-pat)",
        "skipped tokens/[secret]: contains-secret (rule github-pat)",
        "skipped config/db.py: contains-secret",
        "skipped ci/gitlab.yml: contains-secret",
        "skipped .env: contains-secret (rule credential-file)",
        "skipped .env.local: contains-secret (rule credential-file)",
        "skipped .netrc: contains-secret",
        "skipped .pgpass: contains-secret",
        "skipped .npmrc: contains-secret",
        "skipped .pypirc: contains-secret",
        "skipped .git-credentials: contains-secret",
        "skipped .aws/credentials: contains-secret",
        "skipped keys/id_ed25519: contains-secret",
        "skipped keys/deploy.ppk: contains-secret",
    ] {
        assert!(run.stderr.contains(skipped), "{skipped}\n{}", run.stderr);
    }
    // --allow-secrets is the one way in.
    let run = packer_in(
        base.path(),
        &[
            "collect",
            &shown,
            "--hidden",
            "--allow-secrets",
            "--base-url",
            "https://example.com/",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains(&token) && run.stdout.contains(&gitlab));
}

#[test]
fn a_fifo_rule_or_attributes_file_in_a_checkout_stops_git_not_packer() {
    // `git status` would wait for ever on these; packer stops it and says
    // the checkout may have changes.
    let base = tempfile::tempdir().unwrap();
    let fifo = |path: PathBuf| {
        rustix::fs::mkfifoat(rustix::fs::CWD, &path, rustix::fs::Mode::RWXU).unwrap();
    };
    let ignore = base.path().join("ignore");
    checkout(&ignore, "https://github.com/owner/repo.git");
    fs::remove_file(ignore.join(".gitattributes")).unwrap();
    fifo(ignore.join(".gitignore"));
    let attributes = base.path().join("attributes");
    checkout(&attributes, "https://github.com/owner/repo.git");
    fs::remove_file(attributes.join(".gitattributes")).unwrap();
    fifo(attributes.join(".gitattributes"));
    let threads: Vec<_> = [ignore, attributes]
        .into_iter()
        .map(|repo| {
            let cwd = base.path().to_path_buf();
            std::thread::spawn(move || {
                let started = Instant::now();
                let dir = repo.display().to_string();
                let run = packer_in(&cwd, &["pack", "--dir", &dir, "--budget", "2000"]);
                (repo, run, started.elapsed())
            })
        })
        .collect();
    for thread in threads {
        let (repo, run, took) = thread.join().unwrap();
        assert_eq!(run.status, 0, "{}: {}", repo.display(), run.stderr);
        assert!(run.stdout.contains("https://github.com/owner/repo/blob/"));
        assert!(run.stderr.contains("uncommitted changes"), "{}", run.stderr);
        assert!(took < Duration::from_secs(90), "{took:?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_huge_rule_file_cannot_make_git_grow() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    checkout(&repo, "https://github.com/owner/repo.git");
    fs::File::create(repo.join(".gitignore"))
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    // The largest resident size of packer and every process it waited for
    // (git among them).
    let output = Command::new("python3")
        .args([
            "-c",
            "import os, subprocess, sys\n\
             p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n\
             print(os.wait4(p.pid, 0)[2].ru_maxrss)",
            env!("CARGO_BIN_EXE_packer"),
            "pack",
            "--dir",
        ])
        .arg(&repo)
        .args(["--budget", "2000", "--format", "summary"])
        .output()
        .unwrap();
    let kib: u64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap();
    assert!(kib < 768 << 10, "{kib} KiB");
}

#[test]
fn links_among_the_objects_mean_no_checkout() {
    let base = tempfile::tempdir().unwrap();
    let outside = base.path().join("outside");
    checkout(&outside, "https://github.com/outsider/repo.git");
    git(&outside, &["gc", "-q"]);
    let repo = base.path().join("repo");
    checkout(&repo, "https://github.com/owner/repo.git");
    for entry in fs::read_dir(outside.join(".git/objects/pack"))
        .unwrap()
        .flatten()
    {
        std::os::unix::fs::symlink(
            entry.path(),
            repo.join(".git/objects/pack").join(entry.file_name()),
        )
        .unwrap();
    }
    let dir = repo.display().to_string();
    let run = packer_in(base.path(), &["pack", "--dir", &dir, "--budget", "2000"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("\"url\""), "{}", run.stdout);
}

#[test]
fn payload_out_refuses_standard_input_rule_files_and_the_git_directory() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path();
    let input = fixture(dir);
    let original = fs::read(&input).unwrap();
    // The fixture on standard input, redirected from the file.
    let output = common::packer()
        .current_dir(dir)
        .args([
            "pack",
            "-",
            "--budget",
            "100",
            "--payload-out",
            "fixture.json",
        ])
        .stdin(fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(fs::read(&input).unwrap(), original);
    // A rule file and the files of the checkout's .git.
    let repo = dir.join("repo");
    checkout(&repo, "https://github.com/owner/repo.git");
    write(&repo.join(".gitignore"), "*.log\n");
    write(&repo.join("only-rules/.gitignore"), "*.x\n");
    for out in [
        "repo/.gitignore",
        "repo/.gitattributes",
        "repo/only-rules/.gitignore",
        "repo/.git/HEAD",
        "repo/.git/config",
        "repo/.git/new-file",
    ] {
        let before = fs::read(dir.join(out)).ok();
        let run = packer_in(
            dir,
            &[
                "pack",
                "--dir",
                "repo",
                "--budget",
                "2000",
                "--payload-out",
                out,
            ],
        );
        assert_eq!(run.status, 2, "{out}: {}", run.stderr);
        assert!(
            run.stderr.contains("error[payload-out-is-input]"),
            "{out}: {}",
            run.stderr
        );
        assert_eq!(fs::read(dir.join(out)).ok(), before, "{out}");
    }
}

/// A symbolic link planted in a collected tree cannot aim `--payload-out`
/// at a file outside it, as the file named or as a directory on the way;
/// a plain path in the tree, and a link the user made outside it, are
/// written as before.
#[test]
fn payload_out_never_follows_a_link_planted_in_the_tree() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path();
    write(&dir.join("tree/README.md"), "# readme\n");
    write(&dir.join("outside/victim.txt"), "keep me\n");
    let link = |target: &str, name: &str| {
        std::os::unix::fs::symlink(dir.join(target), dir.join(name)).unwrap();
    };
    link("outside/victim.txt", "tree/context.md");
    link("outside", "tree/out");
    link("outside/new.md", "tree/dangling.md");
    let pack_tree = |out: &str| {
        packer_in(
            dir,
            &[
                "pack",
                "--dir",
                "tree",
                "--budget",
                "2000",
                "--payload-out",
                out,
            ],
        )
    };
    for out in [
        "tree/context.md",
        "tree/out/victim.txt",
        "tree/out/new.md",
        "tree/dangling.md",
    ] {
        let run = pack_tree(out);
        assert_eq!(run.status, 2, "{out}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("error[payload-out-is-link]"),
            "{out}: {}",
            run.stderr
        );
    }
    assert_eq!(
        fs::read_to_string(dir.join("outside/victim.txt")).unwrap(),
        "keep me\n"
    );
    assert!(!dir.join("outside/new.md").exists());
    // A plain path in the tree, and the user's own link outside it.
    link("outside/mine.md", "mine.md");
    write(&dir.join("outside/mine.md"), "old\n");
    for out in ["tree/packed.md", "mine.md"] {
        let run = pack_tree(out);
        assert_eq!(run.status, 0, "{out}: {}", run.stderr);
        assert!(
            fs::read_to_string(dir.join(out))
                .unwrap()
                .contains("# readme")
        );
    }
    assert!(
        fs::symlink_metadata(dir.join("mine.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[cfg(target_os = "linux")]
#[test]
fn payload_out_and_out_dir_are_never_redirected_by_a_directory_swapped_for_a_link() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path();
    write(&dir.join("tree/README.md"), "# readme\n");
    write(&dir.join("tree/sub/keep.txt"), "in the tree\n");
    fs::create_dir_all(dir.join("outside")).unwrap();
    std::os::unix::fs::symlink(dir.join("outside"), dir.join("tree/swap")).unwrap();
    // A process in the tree swaps `sub` and the link to outside, in a loop.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapping = {
        let (a, b, stop) = (dir.join("tree/sub"), dir.join("tree/swap"), stop.clone());
        std::thread::spawn(move || swapper(a, b, stop))
    };
    let runs = 150;
    let mut written = 0;
    for run in 0..runs {
        let out_dir = format!("tree/sub/windows-{run}");
        let out = format!("tree/sub/out-{run}.md");
        let (args, what): (Vec<&str>, &str) = if run % 3 == 2 {
            (
                vec![
                    "pack",
                    "--dir",
                    "tree",
                    "--budget",
                    "2000",
                    "--windows",
                    "--out-dir",
                    &out_dir,
                ],
                "out-dir",
            )
        } else {
            (
                vec![
                    "pack",
                    "--dir",
                    "tree",
                    "--budget",
                    "2000",
                    "--payload-out",
                    &out,
                ],
                "payload-out",
            )
        };
        let ran = packer_in(dir, &args);
        match ran.status {
            0 => written += 1,
            // Refused: the link was on the way when packer looked, or the
            // directory was away.
            _ => assert!(
                ran.stderr.contains("error[payload-out-is-link]")
                    || ran.stderr.contains("error[out-dir-refused]")
                    || ran.stderr.contains("error[payload-out-failed]")
                    || ran.stderr.contains("error[out-dir-failed]"),
                "{what}: {}",
                ran.stderr
            ),
        }
        assert_eq!(
            fs::read_dir(dir.join("outside")).unwrap().count(),
            0,
            "run {run} ({what}) wrote outside the tree"
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapping.join().unwrap();
    assert!(written > 0, "no run wrote (all {runs} refused)");
}

#[test]
fn a_git_program_in_the_tree_never_runs_even_with_a_relative_path_entry() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    checkout(&repo, "https://github.com/owner/repo.git");
    let marker = base.path().join("pwned-path");
    let fake = repo.join("git");
    write(
        &fake,
        &format!("#!/bin/sh\necho x > {}\n", marker.display()),
    );
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(":.:{}", std::env::var("PATH").unwrap_or_default());
    let output = common::packer()
        .current_dir(&repo)
        .args(["pack", "--dir", ".", "--budget", "2000", "--git-order"])
        .env_clear()
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("https://github.com/owner/repo/blob/")
    );
    assert!(!marker.exists());
}

/// The processes whose working directory is `dir` (Linux).
#[cfg(target_os = "linux")]
fn processes_in(dir: &Path) -> usize {
    let dir = dir.canonicalize().unwrap();
    fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
                && fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd == dir)
        })
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn a_blocked_git_does_not_outlive_a_killed_packer_for_long() {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    checkout(&repo, "https://github.com/owner/repo.git");
    fs::remove_file(repo.join(".gitattributes")).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        repo.join(".gitignore"),
        rustix::fs::Mode::RWXU,
    )
    .unwrap();
    let mut child = common::packer()
        .args(["pack", "--dir"])
        .arg(&repo)
        .args(["--budget", "2000"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until git is blocked in the checkout, then kill packer.
    let started = Instant::now();
    while processes_in(&repo) == 0 && started.elapsed() < Duration::from_secs(90) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(processes_in(&repo) > 0, "git never started");
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = Instant::now();
    while processes_in(&repo) > 0 && killed.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        processes_in(&repo),
        0,
        "git still runs {:?} after packer",
        killed.elapsed()
    );
}

fn request_json(words: &str) -> String {
    serde_json::json!({"messages": [
        {"role": "user", "content": format!("{words}\n{{{{packer:documents}}}}")}
    ]})
    .to_string()
}

#[test]
fn a_packer_toml_request_is_used_and_the_flag_wins_over_it() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    write(&root.join("README.md"), "# Demo\nA small project.\n");
    write(&root.join("src/lib.rs"), "pub fn f() -> u32 {\n    1\n}\n");
    write(
        &root.join("chat/request.json"),
        &request_json("From the tree:"),
    );
    write(
        &root.join("packer.toml"),
        "budget = 400\nencoding = \"o200k_harmony\"\nrequest = \"chat/request.json\"\n",
    );
    let run = packer_in(base.path(), &["pack", "--dir", "root", "--format", "json"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let text = json["requestText"].as_str().unwrap();
    assert!(
        text.contains("From the tree:\n# Documents\n## README.md"),
        "{text}"
    );
    assert_eq!(json["requestTokens"], common::harmony_count(text));
    assert!(json["requestTokens"].as_u64().unwrap() <= 400);
    // --format request prints it, with the request from the file.
    let run = packer_in(
        base.path(),
        &["pack", "--dir", "root", "--format", "request"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stdout, text);
    // The flag wins over the file.
    write(
        &base.path().join("mine.json"),
        &request_json("From the flag:"),
    );
    let run = packer_in(
        base.path(),
        &[
            "pack",
            "--dir",
            "root",
            "--request",
            "mine.json",
            "--format",
            "request",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    // (The tree's request file is also one of the documents.)
    assert!(
        run.stdout.contains("<|message|>From the flag:\n"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("<|message|>From the tree:"),
        "{}",
        run.stdout
    );
    // A template the file names, read inside the directory (and left out
    // of the documents: its special tokens' text would count as ordinary
    // text there, where the oracle below counts them as special tokens).
    write(
        &root.join("chat/template.jinja"),
        "{% for m in messages %}<|start|>{{ m.role }}<|message|>{{ m.content }}<|end|>{% endfor %}",
    );
    write(
        &root.join("packer.toml"),
        "budget = 400\nencoding = \"o200k_harmony\"\nrequest = \"chat/request.json\"\n\
         chat-template = \"chat/template.jinja\"\nglobs = [\"!chat/**\"]\n",
    );
    let run = packer_in(base.path(), &["pack", "--dir", "root", "--format", "json"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let text = json["requestText"].as_str().unwrap();
    assert!(
        text.starts_with("<|start|>user<|message|>From the tree:\n"),
        "{text}"
    );
    assert!(text.ends_with("<|end|>"), "{text}");
    assert_eq!(json["requestTokens"], common::harmony_count(text));
}

#[test]
fn a_packer_toml_request_outside_its_directory_is_refused_and_never_read() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    write(&root.join("README.md"), "# Demo\n");
    // Outside the tree: a valid request and template that carry the marker,
    // so reading either would show.
    write(
        &base.path().join("outside/request.json"),
        &request_json(MARKER),
    );
    write(
        &base.path().join("outside/template.jinja"),
        &format!("{MARKER}{{{{ messages[0].content }}}}"),
    );
    write(&root.join("chat/request.json"), &request_json("inside"));
    std::os::unix::fs::symlink(
        base.path().join("outside/request.json"),
        root.join("link.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        base.path().join("outside/template.jinja"),
        root.join("link.jinja"),
    )
    .unwrap();
    std::os::unix::fs::symlink(base.path().join("outside"), root.join("out")).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("fifo.json"),
        rustix::fs::Mode::RWXU,
    )
    .unwrap();
    let outside = base.path().join("outside/request.json");
    let absolute = format!("request = \"{}\"", outside.display());
    for keys in [
        absolute.as_str(),
        "request = \"/etc/passwd\"",
        "request = \"../outside/request.json\"",
        "request = \"chat/../../outside/request.json\"",
        "request = \"link.json\"",
        "request = \"out/request.json\"",
        "request = \"fifo.json\"",
        "request = \"chat/request.json\"\nchat-template = \"link.jinja\"",
        "request = \"chat/request.json\"\nchat-template = \"out/template.jinja\"",
        "request = \"chat/request.json\"\nchat-template = \"/etc/passwd\"",
        "chat-template = \"chat/request.json\"",
    ] {
        write(
            &root.join("packer.toml"),
            &format!("budget = 400\nencoding = \"o200k_harmony\"\n{keys}\n"),
        );
        let started = Instant::now();
        let run = packer_in(base.path(), &["pack", "--dir", "root", "--format", "json"]);
        assert!(started.elapsed() < Duration::from_secs(10), "{keys}");
        assert_eq!(run.status, 2, "{keys}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains("error[invalid-config]: packer.toml"),
            "{keys}: {}",
            run.stderr
        );
        for text in [&run.stdout, &run.stderr] {
            assert!(!text.contains(MARKER), "{keys}: {text}");
            assert!(!text.contains("root:x:0"), "{keys}: {text}");
        }
    }
}
