//! What Git knows about a collected directory: the web address of its
//! remote at the checked-out commit (so every url pins the exact revision)
//! and the order in which files last changed.
//!
//! A checkout may be hostile: its `.git/config` can name programs
//! (`core.fsmonitor`, filter drivers, hooks) that `git` runs, a `.git` file
//! or `commondir` can point at a repository elsewhere, and `git status`
//! rewrites the index. So Git is asked only this way:
//!
//! - only a `.git` *directory* directly inside the collected directory
//!   counts: packer never climbs to a parent repository, and a `.git` file
//!   (linked worktree, submodule), a `commondir` file, object alternates or
//!   a symbolic link among the entries packer relies on mean "no checkout";
//! - `HEAD`, the refs and the configuration are read as data (the
//!   configuration through `git config --file … --no-includes --list`,
//!   which only parses it);
//! - every other command runs against a private Git directory that packer
//!   makes in a temporary folder: its own empty configuration, `HEAD` set
//!   to the commit id, and a copy of the index; the checkout's objects are
//!   read in place through `GIT_OBJECT_DIRECTORY`. The system and global
//!   configuration are ignored, the environment is cleared, optional locks
//!   are off, fsmonitor is off and submodules are ignored, so no program
//!   named by the tree runs and nothing in the tree is written.
//!
//! Without `git`, or outside such a checkout, there is no [`Checkout`].

use std::collections::HashMap;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use packer_files::Root;

/// A directory that is the top of a Git checkout with at least one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The checked-out commit (full hex id).
    pub commit: String,
    /// The directory's path inside the repository, `/`-separated, ending
    /// in `/` (always empty: only the top of a checkout is read).
    pub prefix: String,
    /// The fetch URL of `origin`, or of the first remote when there is no
    /// `origin` (with `url.<base>.insteadOf` applied).
    pub remote: Option<String>,
    /// Whether tracked files differ from the commit or untracked files
    /// exist (so some urls may show other text than was packed).
    pub dirty: bool,
}

/// The most bytes read of each kind of Git file; a larger file means no
/// checkout (or, for the index and the exclude list, a less exact status).
const MAX_REF_FILE: u64 = 4096;
const MAX_PACKED_REFS: u64 = 64 << 20;
const MAX_CONFIG: u64 = 1 << 20;
const MAX_INDEX: u64 = 256 << 20;
const MAX_EXCLUDE: u64 = 4 << 20;

/// The most entries under `.git/objects` that are checked for links (a
/// repository with more loose objects is read as no checkout).
const MAX_OBJECT_ENTRIES: usize = 2_000_000;

/// How long each `git` command may take before it is stopped (and its
/// answer taken as none): a FIFO named `.gitignore` or `.gitattributes`
/// would make `git status` wait for ever.
const QUICK: Duration = Duration::from_secs(10);
const STATUS: Duration = Duration::from_secs(30);
const LOG: Duration = Duration::from_secs(120);

/// The most memory (data segment) a `git` command may use: a huge
/// `.gitignore` would make `git status` hold it whole.
const MAX_GIT_MEMORY: u64 = 512 << 20;

/// The most output taken from a `git` command.
const MAX_GIT_OUTPUT: u64 = 256 << 20;

/// The checkout's Git directory as packer may use it.
struct Repository {
    /// The checkout's top, opened once; Git's files are read beneath it.
    root: Root,
    /// `DIR/.git`, absolute (for `GIT_OBJECT_DIRECTORY`).
    git_dir: PathBuf,
    /// The configuration as (lower-case key, value) pairs, in file order.
    config: Vec<(String, String)>,
}

/// A private Git directory in a temporary folder (readable by this user
/// only), removed when dropped.
struct Private {
    temp: tempfile::TempDir,
}

/// A private temporary folder with an empty `home` in it.
fn private_folder() -> Option<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("packer-git-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o700));
    }
    let temp = builder.tempdir().ok()?;
    fs::create_dir_all(temp.path().join("home")).ok()?;
    Some(temp)
}

impl Private {
    /// Makes the private directory for `repo` with `HEAD` at `commit`.
    fn new(repo: &Repository, commit: &str) -> Option<Private> {
        let temp = private_folder()?;
        let git = temp.path().join("git");
        fs::create_dir_all(git.join("refs")).ok()?;
        fs::create_dir_all(git.join("objects")).ok()?;
        fs::create_dir_all(git.join("info")).ok()?;
        fs::write(git.join("HEAD"), format!("{commit}\n")).ok()?;
        let sha256 = repo.value("extensions.objectformat") == Some("sha256");
        let config = if sha256 {
            "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectformat = sha256\n"
        } else {
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        };
        fs::write(git.join("config"), config).ok()?;
        // Data only: the index (and a split index's shared parts) and the
        // exclude list; a missing one only makes the status less exact.
        repo.copy(".git/index", MAX_INDEX, &git.join("index"));
        repo.copy(".git/info/exclude", MAX_EXCLUDE, &git.join("info/exclude"));
        if let Ok(entries) = fs::read_dir(&repo.git_dir) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let text = name.to_string_lossy();
                if text.starts_with("sharedindex.") && !text.contains('/') {
                    repo.copy(&format!(".git/{text}"), MAX_INDEX, &git.join(&name));
                }
            }
        }
        Some(Private { temp })
    }

    /// Runs `git` with the private directory, the checkout's objects and
    /// `dir` as the work tree, for at most `timeout`; its standard output,
    /// or `None` when git is missing, fails or runs out of time.
    fn git(
        &self,
        repo: &Repository,
        dir: &Path,
        args: &[&str],
        timeout: Duration,
    ) -> Option<Vec<u8>> {
        let mut command = sealed_git(self.temp.path(), timeout);
        command
            .current_dir(dir)
            .env("GIT_DIR", self.temp.path().join("git"))
            .env("GIT_WORK_TREE", dir)
            .env("GIT_OBJECT_DIRECTORY", repo.git_dir.join("objects"))
            .args(args);
        run(command, timeout)
    }
}

/// A `git` command that reads no configuration but packer's own and runs
/// nothing the tree names: a cleared environment (only `PATH`'s absolute
/// entries kept), a private home, no system or global configuration, no
/// optional locks, no fsmonitor, no hooks, no transport, no lazy fetch; it
/// is killed a little after `limit` (see [`git_command`]).
fn sealed_git(temp: &Path, limit: Duration) -> Command {
    let mut command = git_command(limit);
    command.env_clear();
    if let Some(path) = absolute_path_variable() {
        command.env("PATH", path);
    }
    command
        .env("HOME", temp.join("home"))
        .env("XDG_CONFIG_HOME", temp.join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", null_device())
        .env("GIT_ATTR_NOSYSTEM", "1")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_PROTOCOL_FROM_USER", "0")
        .env("LC_ALL", "C")
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.untrackedCache=false",
            "-c",
            "protocol.allow=never",
            "-c",
            "core.quotePath=false",
        ])
        // Hooks would be looked for here: a device, not a directory.
        .arg("-c")
        .arg(format!("core.hooksPath={}", null_device()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// `git`, started through `/bin/sh` with its data segment limited to
/// [`MAX_GIT_MEMORY`] before it runs (`ulimit -d`: a huge `.gitignore`
/// would make `git status` hold it whole) and, where coreutils' `timeout`
/// is found, killed a little after `limit` even if packer itself was
/// killed meanwhile (so no `git` blocked on a FIFO outlives it for long).
/// The arguments reach git as `"$@"`, never as shell text.
#[cfg(unix)]
fn git_command(limit: Duration) -> Command {
    let mut command = Command::new("/bin/sh");
    command.args([
        "-c",
        &format!(
            "ulimit -d {} 2>/dev/null; \
             if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL {} git \"$@\"; fi; \
             exec git \"$@\"",
            MAX_GIT_MEMORY / 1024,
            limit.as_secs() + 5
        ),
        "git",
    ]);
    command
}

#[cfg(not(unix))]
fn git_command(_limit: Duration) -> Command {
    Command::new("git")
}

/// `PATH` without its relative entries (`.`, an empty entry): git runs in
/// the collected directory, where a file named `git` may wait.
fn absolute_path_variable() -> Option<std::ffi::OsString> {
    let path = std::env::var_os("PATH")?;
    std::env::join_paths(std::env::split_paths(&path).filter(|entry| entry.is_absolute())).ok()
}

fn null_device() -> &'static str {
    if cfg!(windows) { "NUL" } else { "/dev/null" }
}

/// Runs `command` for at most `timeout` (then stops it); its standard
/// output (at most [`MAX_GIT_OUTPUT`]) when it succeeds.
fn run(mut command: Command, timeout: Duration) -> Option<Vec<u8>> {
    // Its own process group, so that a stop reaches git beneath the shell
    // and `timeout`, and the pipe closes.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().ok()?;
    let stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout
            .take(MAX_GIT_OUTPUT)
            .read_to_end(&mut out)
            .map(|_| out)
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(2));
            }
            _ => {
                #[cfg(unix)]
                let _ = rustix::process::kill_process_group(
                    rustix::process::Pid::from_child(&child),
                    rustix::process::Signal::KILL,
                );
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let out = reader.join().ok()?.ok()?;
    status?.success().then_some(out)
}

impl Repository {
    /// The repository whose Git directory is `dir/.git`, if packer may use
    /// it (see the module documentation).
    fn open(dir: &Path) -> Option<Repository> {
        let root = Root::open(dir).ok()?;
        if !root.is_directory(Path::new(".git")) {
            return None;
        }
        let git_dir = dir.join(".git");
        // Entries that would lead Git elsewhere.
        for redirect in ["commondir", "gitdir"] {
            if fs::symlink_metadata(git_dir.join(redirect)).is_ok() {
                return None;
            }
        }
        // The objects Git reads in place: directories and regular files
        // only, no link anywhere, no alternates.
        if !root.is_directory(Path::new(".git/objects"))
            || fs::symlink_metadata(git_dir.join("objects/info/alternates")).is_ok()
            || !plain_tree(&git_dir.join("objects"))
        {
            return None;
        }
        let repo = Repository {
            root,
            git_dir,
            config: Vec::new(),
        };
        let config = read_config(&repo.read(".git/config", MAX_CONFIG)?)?;
        Some(Repository { config, ..repo })
    }

    /// The bytes of the regular file at `relative` (beneath the checkout,
    /// never through a link), if it holds at most `limit` bytes.
    fn read(&self, relative: &str, limit: u64) -> Option<Vec<u8>> {
        self.root
            .open_file(Path::new(relative))
            .ok()?
            .read_limited(limit)
            .ok()?
    }

    fn read_text(&self, relative: &str, limit: u64) -> Option<String> {
        String::from_utf8(self.read(relative, limit)?).ok()
    }

    /// Copies a file that Git reads as data into the private directory.
    fn copy(&self, relative: &str, limit: u64, to: &Path) {
        if let Some(bytes) = self.read(relative, limit) {
            let _ = fs::write(to, bytes);
        }
    }

    /// The last value of `key` (lower-case section and name).
    fn value(&self, key: &str) -> Option<&str> {
        self.config
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The commit `HEAD` names: a full hex id, read from `HEAD`, the loose
    /// refs and `packed-refs` as data (symbolic refs followed up to five
    /// times).
    fn head(&self) -> Option<String> {
        let mut target = self
            .read_text(".git/HEAD", MAX_REF_FILE)?
            .trim_end()
            .to_owned();
        for _ in 0..5 {
            let Some(name) = target.strip_prefix("ref:") else {
                return is_object_id(&target).then_some(target);
            };
            let name = name.trim().to_owned();
            if !is_ref_name(&name) {
                return None;
            }
            target = match self.read_text(&format!(".git/{name}"), MAX_REF_FILE) {
                Some(text) => text.trim_end().to_owned(),
                None => self.packed_ref(&name)?,
            };
        }
        None
    }

    fn packed_ref(&self, name: &str) -> Option<String> {
        let text = self.read_text(".git/packed-refs", MAX_PACKED_REFS)?;
        text.lines()
            .filter(|line| !line.starts_with('#') && !line.starts_with('^'))
            .find_map(|line| {
                let (id, ref_name) = line.split_once(' ')?;
                (ref_name == name).then(|| id.to_owned())
            })
    }

    /// The fetch URL of `origin`, else of the first remote by name, with the
    /// longest matching `url.<base>.insteadOf` applied.
    fn remote(&self) -> Option<String> {
        let mut names: Vec<&str> = self
            .config
            .iter()
            .filter_map(|(key, _)| {
                let rest = key.strip_prefix("remote.")?;
                rest.strip_suffix(".url")
            })
            .collect();
        names.sort_unstable();
        names.dedup();
        let name = if names.contains(&"origin") {
            "origin"
        } else {
            names.first()?
        };
        // The first url of the remote is its fetch url.
        let url = self
            .config
            .iter()
            .find(|(key, _)| *key == format!("remote.{name}.url"))
            .map(|(_, value)| value.as_str())?;
        Some(self.rewrite(url))
    }

    fn rewrite(&self, url: &str) -> String {
        let best = self
            .config
            .iter()
            .filter_map(|(key, prefix)| {
                let base = key.strip_prefix("url.")?.strip_suffix(".insteadof")?;
                url.starts_with(prefix.as_str()).then_some((prefix, base))
            })
            .max_by_key(|(prefix, _)| prefix.len());
        match best {
            Some((prefix, base)) => format!("{base}{}", &url[prefix.len()..]),
            None => url.to_owned(),
        }
    }
}

/// Whether everything under `dir` is a directory or a regular file (no
/// link, FIFO or device), with at most [`MAX_OBJECT_ENTRIES`] entries.
fn plain_tree(dir: &Path) -> bool {
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    // An entry that is gone by the time it is read was removed by Git
    // itself (a `git gc --auto` that a commit started in the background
    // packs loose objects and removes their emptied directories): it is
    // skipped, not taken for a sign of a link.
    let gone = |error: &std::io::Error| error.kind() == std::io::ErrorKind::NotFound;
    while let Some(dir) = stack.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if gone(&error) && seen > 0 => continue,
            Err(_) => return false,
        };
        for entry in entries {
            let Ok(entry) = entry else { return false };
            let kind = match entry.file_type() {
                Ok(kind) => kind,
                Err(error) if gone(&error) => continue,
                Err(_) => return false,
            };
            seen += 1;
            if seen > MAX_OBJECT_ENTRIES {
                return false;
            }
            if kind.is_dir() {
                stack.push(entry.path());
            } else if !kind.is_file() {
                return false;
            }
        }
    }
    true
}

/// Reads a Git configuration file's bytes as data: `git config --file` on a
/// private copy, with includes off, parses it and runs nothing.
fn read_config(bytes: &[u8]) -> Option<Vec<(String, String)>> {
    let temp = private_folder()?;
    let copy = temp.path().join("config");
    fs::write(&copy, bytes).ok()?;
    let mut command = sealed_git(temp.path(), QUICK);
    command
        .current_dir(temp.path())
        .env("GIT_DIR", temp.path().join("no-repository"))
        .args(["config", "--no-includes", "--null", "--list", "--file"])
        .arg(&copy);
    let out = String::from_utf8(run(command, QUICK)?).ok()?;
    Some(
        out.split('\0')
            .filter(|entry| !entry.is_empty())
            .map(|entry| match entry.split_once('\n') {
                Some((key, value)) => (key.to_owned(), value.to_owned()),
                None => (entry.to_owned(), String::new()),
            })
            .collect(),
    )
}

/// A full SHA-1 or SHA-256 hex object id.
fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A ref name that stays inside the Git directory: `refs/…`, plain
/// components only.
fn is_ref_name(name: &str) -> bool {
    name.starts_with("refs/")
        && name
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != ".." && !part.contains('\\'))
        && !name.bytes().any(|b| b.is_ascii_control())
}

/// The checkout `dir` is the top of, if any (see the module documentation
/// for what is read and what is run).
pub fn checkout(dir: &Path) -> Option<Checkout> {
    let dir = &std::path::absolute(dir).ok()?;
    let repo = Repository::open(dir)?;
    let head = repo.head()?;
    let private = Private::new(&repo, &head)?;
    let commit = private.git(
        &repo,
        dir,
        &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
        QUICK,
    )?;
    let commit = String::from_utf8(commit).ok()?.trim_end().to_owned();
    if !is_object_id(&commit) {
        return None;
    }
    let dirty = private
        .git(
            &repo,
            dir,
            &[
                "status",
                "--porcelain",
                "--ignore-submodules=all",
                "--no-renames",
                "--",
                ".",
            ],
            STATUS,
        )
        .is_none_or(|out| !out.is_empty());
    Some(Checkout {
        commit,
        prefix: String::new(),
        remote: repo.remote(),
        dirty,
    })
}

/// The forges whose web addresses are known.
pub const FORGES: &str = "GitHub, GitLab, Bitbucket, Codeberg or sourcehut";

/// The web address that ids are joined to: the remote's page for `path`
/// at `commit`, e.g. `https://github.com/OWNER/REPO/blob/COMMIT/PREFIX`.
/// Accepts https, http, `ssh://` and scp-style (`git@host:owner/repo.git`)
/// remotes; credentials in the remote are dropped. `None` for a host that
/// is not one of [`FORGES`] or a path without owner and name.
pub fn web_base(remote: &str, commit: &str, prefix: &str) -> Option<url::Url> {
    let (scheme, host, path) = split_remote(remote)?;
    let path = path.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    if path.split('/').filter(|s| !s.is_empty()).count() < 2 || path.contains("//") {
        return None;
    }
    let host = host.to_ascii_lowercase();
    let pinned = match host.as_str() {
        "github.com" | "www.github.com" => format!("https://github.com/{path}/blob/{commit}/"),
        "bitbucket.org" => format!("https://bitbucket.org/{path}/src/{commit}/"),
        "codeberg.org" => format!("https://codeberg.org/{path}/src/commit/{commit}/"),
        "git.sr.ht" => format!("https://git.sr.ht/{path}/tree/{commit}/item/"),
        _ if host == "gitlab.com" || host.starts_with("gitlab.") => {
            format!("{scheme}://{host}/{path}/-/blob/{commit}/")
        }
        _ => return None,
    };
    let mut url = url::Url::parse(&pinned).ok()?;
    if !prefix.is_empty()
        && let Ok(mut segments) = url.path_segments_mut()
    {
        segments
            .pop_if_empty()
            .extend(prefix.split('/').filter(|s| !s.is_empty()))
            .push("");
    }
    Some(url)
}

/// Splits a remote into the web scheme to use, the host and the path.
fn split_remote(remote: &str) -> Option<(&'static str, String, String)> {
    if let Some((scheme, _)) = remote.split_once("://") {
        let url = url::Url::parse(remote).ok()?;
        let web = match scheme {
            "http" => "http",
            "https" | "ssh" | "git" | "git+ssh" | "ssh+git" => "https",
            _ => return None,
        };
        // The path stays percent-encoded, as it will be in the web address.
        return Some((web, url.host_str()?.to_owned(), url.path().to_owned()));
    }
    // scp-like: [user@]host:path
    let (user_host, path) = remote.split_once(':')?;
    let host = user_host.rsplit('@').next()?;
    if host.is_empty() || host.contains('/') || path.starts_with('/') {
        return None;
    }
    Some(("https", host.to_owned(), path.to_owned()))
}

/// For each file under `dir` (path relative to `dir`, `/`-separated), the
/// rank of the most recent commit that changed it: 0 for the newest commit
/// in `git log` order, then 1, … Files Git never recorded are absent.
/// Deterministic for a given commit. Read the same sealed way as
/// [`checkout()`].
pub fn change_ranks(dir: &Path) -> HashMap<String, usize> {
    let mut ranks = HashMap::new();
    let Ok(dir) = std::path::absolute(dir) else {
        return ranks;
    };
    let dir = dir.as_path();
    let Some(out) = Repository::open(dir).and_then(|repo| {
        let head = repo.head()?;
        let private = Private::new(&repo, &head)?;
        private.git(
            &repo,
            dir,
            &[
                "log",
                "-z",
                "--name-only",
                "--format=%x01",
                "--no-renames",
                "--no-mailmap",
                "HEAD",
                "--",
                ".",
            ],
            LOG,
        )
    }) else {
        return ranks;
    };
    let mut commit = 0usize;
    let mut seen_commit = false;
    for token in out.split(|&b| b == 0) {
        let token = token.strip_prefix(b"\n").unwrap_or(token);
        if token == b"\x01" {
            if seen_commit {
                commit += 1;
            }
            seen_commit = true;
            continue;
        }
        if token.is_empty() {
            continue;
        }
        if let Ok(path) = std::str::from_utf8(token) {
            ranks.entry(path.to_owned()).or_insert(commit);
        }
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: &str = "0123456789abcdef0123456789abcdef01234567";

    fn base(remote: &str, prefix: &str) -> Option<String> {
        web_base(remote, C, prefix).map(String::from)
    }

    #[test]
    fn remotes_map_to_pinned_web_addresses() {
        let github = format!("https://github.com/owner/repo/blob/{C}/");
        for remote in [
            "https://github.com/owner/repo.git",
            "https://github.com/owner/repo",
            "https://github.com/owner/repo/",
            "https://user:token@github.com/owner/repo.git",
            "git@github.com:owner/repo.git",
            "ssh://git@github.com/owner/repo.git",
            "ssh://git@github.com:22/owner/repo",
            "git://github.com/owner/repo.git",
        ] {
            assert_eq!(
                base(remote, "").as_deref(),
                Some(github.as_str()),
                "{remote}"
            );
        }
        assert_eq!(
            base("git@gitlab.com:group/sub/repo.git", "docs/").unwrap(),
            format!("https://gitlab.com/group/sub/repo/-/blob/{C}/docs/")
        );
        assert_eq!(
            base("ssh://git@gitlab.example.com:2222/team/repo.git", "").unwrap(),
            format!("https://gitlab.example.com/team/repo/-/blob/{C}/")
        );
        assert_eq!(
            base("https://bitbucket.org/team/repo.git", "").unwrap(),
            format!("https://bitbucket.org/team/repo/src/{C}/")
        );
        assert_eq!(
            base("https://codeberg.org/owner/repo.git", "a b/").unwrap(),
            format!("https://codeberg.org/owner/repo/src/commit/{C}/a%20b/")
        );
        assert_eq!(
            base("git@git.sr.ht:~user/repo", "").unwrap(),
            format!("https://git.sr.ht/~user/repo/tree/{C}/item/")
        );
    }

    #[test]
    fn unknown_hosts_and_odd_remotes_have_no_web_address() {
        for remote in [
            "https://example.com/owner/repo.git",
            "/srv/git/repo.git",
            "file:///srv/git/repo.git",
            "../repo",
            "https://github.com/onlyowner",
            "git@github.com:/abs/path",
            "",
        ] {
            assert_eq!(base(remote, ""), None, "{remote}");
        }
    }
}
