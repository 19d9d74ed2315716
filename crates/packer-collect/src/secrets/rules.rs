//! The rule table: what a [`Rule`] is, and the rules themselves, which are
//! data (`rules.toml`, in gitleaks' configuration format) that build.rs
//! checks and writes as Rust when the crate builds.

/// One detection rule.
#[derive(Debug)]
pub struct Rule {
    /// The rule's id (gitleaks' id for gitleaks' rules), e.g. `github-pat`.
    pub id: &'static str,
    /// What the rule finds, for the documentation.
    pub description: &'static str,
    /// The pattern (RE2 syntax, which the `regex` crate shares).
    pub(super) pattern: &'static str,
    /// The secret must have more than this Shannon entropy (bits per byte);
    /// 0 checks nothing.
    pub(super) entropy: f64,
    /// The rule runs only when one of these (lower case) is in the text.
    pub(super) keywords: &'static [&'static str],
    /// A secret matching one of these is a documented example, not a secret.
    pub(super) allow: &'static [&'static str],
    /// The capture group that is the secret; 0 means gitleaks' default (the
    /// first non-empty group, or the whole match).
    pub(super) secret_group: usize,
    /// A further test the secret must pass.
    pub(super) check: Check,
    /// When not empty, the rule applies only to a file whose relative path
    /// matches this pattern (gitleaks' `path`).
    pub(super) path: &'static str,
}

/// A test beyond entropy and the allow-lists.
#[derive(Debug, Clone, Copy)]
pub(super) enum Check {
    None,
    /// The secret holds a run of at least this many base64 characters.
    Base64Run(usize),
    /// The secret is a URL's password: percent-decoded before every test,
    /// and it must hold a digit or three of lower case, upper case and
    /// symbols (other than `_`, `-` and `.`), as generated passwords do and
    /// the words of documentation (`apples/oranges`) do not.
    UrlPassword,
}

/// Passwords in URLs that are placeholders: variables and templates
/// (`$PASSWORD`, `%PASSWORD%`, `{password}`, `[password]`, anything with
/// `${`, `#{`, `{{`, `$(` or `%(`), and the words documentation uses
/// (`password`, `passw0rd`, `secret`, `changeme`, `example`, …).
pub const URL_PASSWORD_ALLOW: &[&str] = ALLOW_URL_CREDENTIALS;

// The rules, each rule's allow-list, gitleaks' global allow-list and its
// stop-words: build.rs writes them from `rules.toml`.
include!(concat!(env!("OUT_DIR"), "/secret_rules.rs"));
