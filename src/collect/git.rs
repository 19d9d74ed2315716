//! What Git knows about a collected directory: the web address of its
//! remote at the checked-out commit (so every url pins the exact revision)
//! and the order in which files last changed.
//!
//! Git is asked through the `git` program (read-only commands: `rev-parse`,
//! `remote`, `status`, `log`); no network is used. Without `git`, or outside
//! a checkout, there is no [`Checkout`].

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};

/// A directory inside a Git checkout with at least one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The checked-out commit (full hex id).
    pub commit: String,
    /// The directory's path inside the repository, `/`-separated, ending
    /// in `/` (empty at the top level).
    pub prefix: String,
    /// The fetch URL of `origin`, or of the first remote when there is no
    /// `origin`.
    pub remote: Option<String>,
    /// Whether tracked files differ from the commit or untracked files
    /// exist (so some urls may show other text than was packed).
    pub dirty: bool,
}

/// Runs `git` in `dir` and returns its standard output, or `None` when git
/// is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    output.status.success().then_some(output.stdout)
}

fn git_line(dir: &Path, args: &[&str]) -> Option<String> {
    let out = String::from_utf8(git(dir, args)?).ok()?;
    Some(out.trim_end_matches(['\n', '\r']).to_owned())
}

/// The checkout `dir` is in, if any.
pub fn checkout(dir: &Path) -> Option<Checkout> {
    let commit = git_line(dir, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])?;
    let prefix = git_line(dir, &["rev-parse", "--show-prefix"])?;
    let remotes = git_line(dir, &["remote"]).unwrap_or_default();
    let mut names: Vec<&str> = remotes.lines().filter(|l| !l.is_empty()).collect();
    names.sort_unstable();
    let name = if names.contains(&"origin") {
        Some("origin")
    } else {
        names.first().copied()
    };
    let remote = name.and_then(|name| git_line(dir, &["remote", "get-url", name]));
    let dirty = git(dir, &["status", "--porcelain", "--", "."]).is_none_or(|out| !out.is_empty());
    Some(Checkout {
        commit,
        prefix,
        remote,
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
/// Deterministic for a given commit.
pub fn change_ranks(dir: &Path) -> HashMap<String, usize> {
    let mut ranks = HashMap::new();
    let Some(out) = git(
        dir,
        &[
            "-c",
            "core.quotePath=false",
            "log",
            "-z",
            "--name-only",
            "--format=%x01",
            "--no-renames",
            "--relative",
            "HEAD",
            "--",
            ".",
        ],
    ) else {
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
