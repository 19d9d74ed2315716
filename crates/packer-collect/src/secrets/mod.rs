//! High-confidence secret detection, so that a key never goes into a prompt
//! unnoticed.
//!
//! [`find`] looks for a secret in a file's content, [`find_in_name`] in its
//! path, and [`credential_file`] recognises the files that hold credentials
//! by name (`.env`, `.netrc`, `.aws/credentials`, `id_rsa`, …). Whatever
//! they report names a rule id, never the secret. The rule list, the
//! allow-lists and the file names are documented in `docs/secrets.md`.
//!
//! Most rules are gitleaks' (<https://github.com/gitleaks/gitleaks>, MIT
//! licence, Copyright (c) 2019 Zachary Rice; the notice is reproduced in
//! `docs/secrets.md`), taken from
//! `config/gitleaks.toml` and `cmd/generate/config/rules/*.go` at commit
//! `b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b`: each keeps gitleaks' id,
//! pattern, minimum Shannon entropy, keywords and own allow-list, and
//! gitleaks' global allow-list and stop-words apply to every rule. The rules
//! are data, `src/secrets/rules.toml` (gitleaks' own configuration is TOML,
//! and the file keeps its key names), which the build checks and writes as
//! the Rust table [`RULES`] (`build.rs`): a malformed rule or a regex the
//! `regex` crate cannot compile fails the build, not a run. Only rules
//! whose pattern is a distinctive, vendor-issued format are taken: a fixed
//! prefix (`ghp_`, `sk-ant-api03-`, `glcbt-`) or a fixed structure (a PEM
//! block, `…8Q~…`). A few of gitleaks' rules that also need the vendor's
//! name nearby are taken when the value itself has a vendor prefix as well
//! (`NRAK-` next to `newrelic`, `pk.` next to `mapbox`). Left out are
//! gitleaks' generic and keyword-only rules (`generic-api-key`, `jwt`,
//! `curl-auth-header`, `kubernetes-secret-yaml`, the `…-api-key` rules that
//! are a hex string next to a vendor's name): they flag ordinary code, test
//! data and documentation too often for a tool that skips whole files.
//!
//! Matching follows gitleaks: a rule runs only when one of its keywords is in
//! the text (case-insensitively); the secret is the rule's secret group, or
//! else the first non-empty capture group, or else the whole match; it must
//! have more than the rule's entropy, and it must not match gitleaks' global
//! allow-list, the rule's allow-list or contain a stop-word. Adaptations:
//!
//! - `atlassian-api-token` keeps only its `ATATT3…` branch (the other one is
//!   24 letters and digits next to the word Jira or Confluence);
//! - `sourcegraph-access-token` keeps only its `sgp_` branches (the other one
//!   is any 40-digit hex string, i.e. every git commit id, in a file that
//!   names Sourcegraph);
//! - `square-secret` is defined in gitleaks' `square.go` but not registered
//!   in the generated `gitleaks.toml` at that commit;
//! - `private-key` also requires a run of 40 base64 characters inside the
//!   block, so PEM-parsing code and `...` placeholders between the markers
//!   are not taken for a key;
//! - gitleaks' path allow-lists are not applied ([`find`] sees no path), nor
//!   its decoding of base64 and hex text (percent-encoded text is searched
//!   decoded, see `unfold`), nor its
//!   `gitleaks:allow` comment (`--allow-secrets` is packer's override).
//!
//! packer adds three rules: `ssh2-private-key` and `putty-private-key` (key
//! formats gitleaks' `private-key` does not cover) and `url-credentials`, a
//! password in a URL's user information (`postgres://admin:…@db`), which,
//! percent-decoded, must look random and not be a placeholder (see
//! [`URL_PASSWORD_ALLOW`]).
//!
//! Cost: one pass for all the keywords (an Aho-Corasick automaton that
//! reports overlapping ones); a rule's own pattern runs only when
//! one of its keywords is present. The table is Rust, written at build
//! time; each rule's regexes compile once, the first time
//! one of its keywords is found.
//!
//! Here the search; in `rules` the table (data in `rules.toml`), in `check`
//! the tests a candidate secret must pass, in `files` the credential files,
//! in `unfold` the views of a text searched as well: without invisible
//! characters, percent-decoded, with a token's lines joined.

mod check;
mod files;
mod rules;
mod unfold;

use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::bytes::{Regex, RegexSet};

use check::trim_newlines;
pub use files::{
    CREDENTIAL_DIRECTORIES, CREDENTIAL_FILE, CREDENTIAL_NAMES, CREDENTIAL_PATHS,
    ENV_TEMPLATE_SUFFIXES, PKCS12_FILE, PRIVATE_KEY_FILE, PRIVATE_KEY_NAMES, credential_file,
};
use rules::GLOBAL_ALLOW;
pub use rules::{RULES, Rule, URL_PASSWORD_ALLOW};

/// A rule ready to run.
struct Compiled {
    regex: Regex,
    allow: Option<RegexSet>,
    path: Option<regex::Regex>,
}

struct Detector {
    /// Every distinct keyword, longest first, as one ASCII
    /// case-insensitive Aho-Corasick automaton: one pass finds every
    /// occurrence of every keyword, overlapping ones too.
    keywords: AhoCorasick,
    /// For each keyword, the rules (indices in [`RULES`]) it enables: its
    /// own and those of every keyword inside it (found at the same place).
    keyword_rules: Vec<Vec<usize>>,
    /// The longest keyword's length in bytes.
    longest_keyword: usize,
    /// Each rule, compiled the first time one of its keywords is found
    /// (most trees need a few of the rules, and compiling them all cost
    /// more than scanning a small tree).
    rules: Vec<OnceLock<Compiled>>,
    global_allow: LazyLock<RegexSet>,
}

/// gitleaks' patterns are Go (RE2) syntax, where `\w`, `\s`, `\d`, `\b`
/// and case folding are ASCII-only; Rust's are Unicode unless `(?-u)`.
fn ascii(pattern: &str) -> String {
    format!("(?-u){pattern}")
}

static DETECTOR: LazyLock<Detector> = LazyLock::new(|| {
    // The patterns are constants checked by the tests; a failure here is a
    // bug, caught as an internal error.
    let mut keywords: Vec<&'static str> = RULES
        .iter()
        .flat_map(|rule| rule.keywords.iter().copied())
        .collect();
    keywords.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    keywords.dedup();
    let keyword_rules = keywords
        .iter()
        .map(|keyword| {
            (0..RULES.len())
                .filter(|&index| RULES[index].keywords.iter().any(|k| keyword.contains(k)))
                .collect()
        })
        .collect();
    let longest_keyword = keywords
        .iter()
        .map(|keyword| keyword.len())
        .max()
        .unwrap_or(0);
    let keywords = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::DFA))
        .build(&keywords)
        .expect("secret keywords build");
    let rules = RULES.iter().map(|_| OnceLock::new()).collect();
    let global_allow: LazyLock<RegexSet> = LazyLock::new(|| {
        RegexSet::new(GLOBAL_ALLOW.iter().map(|a| ascii(a))).expect("global allow-list compiles")
    });
    Detector {
        keywords,
        keyword_rules,
        longest_keyword,
        rules,
        global_allow,
    }
});

/// The first rule (in [`RULES`] order) that finds a secret in `text`, of
/// the rules that apply to any file.
pub fn find(text: &str) -> Option<&'static Rule> {
    find_in(None, text)
}

/// The first rule that finds a secret in `text`, the content of the file at
/// `path` (relative, `/` between components): also the rules tied to a
/// kind of file (`nuget-config-password` in a `NuGet.Config`).
pub fn find_in_file(path: &str, text: &str) -> Option<&'static Rule> {
    find_in(Some(path), text)
}

fn find_in(path: Option<&str>, text: &str) -> Option<&'static Rule> {
    let detector = &*DETECTOR;
    let found = detector.keywords_in(text.as_bytes());
    let candidates = detector.rules_of(&found.present());
    detector
        .first_finding(path, text.as_bytes(), &candidates)
        .or_else(|| {
            unfold::views(text).find_map(|view| {
                let candidates = detector.rules_of(&detector.keywords_in_view(text, &found, &view));
                detector.first_finding(path, &view.bytes, &candidates)
            })
        })
}

/// How many times each keyword occurs in a text (overlapping ones too).
struct Found(Vec<usize>);

impl Found {
    /// Which keywords occur.
    fn present(&self) -> Vec<bool> {
        self.0.iter().map(|&count| count > 0).collect()
    }
}

/// A stretch of a text, and the indices of the ranges near which it lies.
type Stretch = (std::ops::Range<usize>, std::ops::Range<usize>);

/// The stretches of a text `len` bytes long within `reach` bytes of any of
/// `ranges` (in order, not overlapping), merged where they meet, each with
/// the indices of the ranges it holds.
fn near(ranges: &[std::ops::Range<usize>], reach: usize, len: usize) -> Vec<Stretch> {
    let mut stretches: Vec<Stretch> = Vec::new();
    for (index, range) in ranges.iter().enumerate() {
        let window = range.start.saturating_sub(reach)..(range.end + reach).min(len);
        match stretches.last_mut() {
            Some((last, held)) if window.start <= last.end => {
                last.end = last.end.max(window.end);
                held.end = index + 1;
            }
            _ => stretches.push((window, index..index + 1)),
        }
    }
    stretches
}

/// The first rule that finds a secret in a file's relative path (`/` or `\`
/// between components), e.g. a token used as a file name. Each component is
/// tried whole and without its extension, one per line.
pub fn find_in_name(path: &str) -> Option<&'static Rule> {
    let mut lines = String::with_capacity(2 * path.len() + 8);
    for component in path.split(['/', '\\']).filter(|c| !c.is_empty()) {
        lines.push_str(component);
        lines.push('\n');
        if let Some((stem, _)) = component.rsplit_once('.')
            && !stem.is_empty()
        {
            lines.push_str(stem);
            lines.push('\n');
        }
    }
    find(&lines)
}

impl Detector {
    /// Rule `index`, compiled on first use.
    fn compiled(&self, index: usize) -> &Compiled {
        self.rules[index].get_or_init(|| {
            let rule = &RULES[index];
            Compiled {
                regex: Regex::new(&ascii(rule.pattern)).expect("secret rule compiles"),
                allow: (!rule.allow.is_empty()).then(|| {
                    RegexSet::new(rule.allow.iter().map(|a| ascii(a)))
                        .expect("secret allow-list compiles")
                }),
                path: (!rule.path.is_empty())
                    .then(|| regex::Regex::new(rule.path).expect("a rule's path pattern compiles")),
            }
        })
    }

    /// How many times each keyword occurs in `text`: one pass that finds
    /// every keyword, overlapping ones too.
    fn keywords_in(&self, text: &[u8]) -> Found {
        let mut counts = vec![0; self.keyword_rules.len()];
        for found in self.keywords.find_overlapping_iter(text) {
            counts[found.pattern().as_usize()] += 1;
        }
        Found(counts)
    }

    /// Which keywords occur in `view` of `text` (whose keywords are
    /// `found`), searching only where the view differs from the text: a
    /// keyword occurs in the view when it occurs in the text clear of the
    /// bytes the view changed (counted near them, where all such
    /// occurrences lie), or holds a byte the view touched (searched near
    /// those). A stretch of the view clear of them is one of the text. A
    /// view whose stretches to search hold more bytes than it is searched
    /// whole.
    fn keywords_in_view(&self, text: &str, found: &Found, view: &unfold::View) -> Vec<bool> {
        let reach = self.longest_keyword.saturating_sub(1);
        let text = text.as_bytes();
        let touched: Vec<std::ops::Range<usize>> =
            view.touched.iter().map(|&at| at..at + 1).collect();
        let (in_text, in_view) = (
            near(&view.changed, reach, text.len()),
            near(&touched, reach, view.bytes.len()),
        );
        // Where the view changes so much that those stretches hold more
        // than the view, the view is searched whole.
        let searched: usize = in_text
            .iter()
            .chain(&in_view)
            .map(|(window, _)| window.len())
            .sum();
        if searched >= view.bytes.len() {
            return self.keywords_in(&view.bytes).present();
        }
        self.keywords_near_changes(text, found, view, in_text, in_view)
    }

    /// [`Detector::keywords_in_view`] from the stretches of the text near
    /// what the view changed (`in_text`, with the changed ranges each
    /// holds) and of the view near the bytes it touched (`in_view`).
    fn keywords_near_changes(
        &self,
        text: &[u8],
        found: &Found,
        view: &unfold::View,
        in_text: Vec<Stretch>,
        in_view: Vec<Stretch>,
    ) -> Vec<bool> {
        // Each keyword's occurrences in the text clear of the changed
        // ranges: all of them, less those that overlap one.
        let mut clear = found.0.clone();
        for (window, ranges) in in_text {
            let ranges = &view.changed[ranges];
            for occurrence in self.keywords.find_overlapping_iter(&text[window.clone()]) {
                let (start, end) = (
                    window.start + occurrence.start(),
                    window.start + occurrence.end(),
                );
                // The first range that ends after the occurrence starts
                // (the ranges are in order) overlaps it when it starts
                // before the occurrence ends.
                let first = ranges.partition_point(|range| range.end <= start);
                if ranges.get(first).is_some_and(|range| range.start < end) {
                    clear[occurrence.pattern().as_usize()] -= 1;
                }
            }
        }
        let mut present: Vec<bool> = clear.iter().map(|&count| count > 0).collect();
        for (window, _) in in_view {
            for occurrence in self.keywords.find_overlapping_iter(&view.bytes[window]) {
                present[occurrence.pattern().as_usize()] = true;
            }
        }
        present
    }

    /// The rules that the keywords `present` enable.
    fn rules_of(&self, present: &[bool]) -> Vec<bool> {
        let mut candidates = vec![false; RULES.len()];
        for (keyword, _) in present.iter().enumerate().filter(|(_, present)| **present) {
            for &rule in &self.keyword_rules[keyword] {
                candidates[rule] = true;
            }
        }
        candidates
    }

    /// The first rule of `candidates` (those with a keyword in `text`), in
    /// [`RULES`] order, that applies to `path` and finds a secret in
    /// `text`.
    fn first_finding(
        &self,
        path: Option<&str>,
        text: &[u8],
        candidates: &[bool],
    ) -> Option<&'static Rule> {
        candidates
            .iter()
            .enumerate()
            .filter(|&(_, &candidate)| candidate)
            .filter(|&(index, _)| match &self.compiled(index).path {
                None => true,
                Some(pattern) => path.is_some_and(|path| pattern.is_match(path)),
            })
            .find(|&(index, _)| self.rule_finds(index, text))
            .map(|(index, _)| &RULES[index])
    }

    /// Whether rule `index` finds a secret in `text`.
    fn rule_finds(&self, index: usize, text: &[u8]) -> bool {
        let rule = &RULES[index];
        let compiled = self.compiled(index);
        compiled.regex.captures_iter(text).any(|captures| {
            let whole = captures
                .get(0)
                .map_or(&b""[..], |m| trim_newlines(m.as_bytes()));
            let secret = if rule.secret_group > 0 {
                captures
                    .get(rule.secret_group)
                    .map_or(&b""[..], |m| m.as_bytes())
            } else {
                captures
                    .iter()
                    .skip(1)
                    .flatten()
                    .map(|m| m.as_bytes())
                    .find(|group| !group.is_empty())
                    .unwrap_or(whole)
            };
            self.is_secret(secret, rule, compiled)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    /// Pieces of text that make every view and put keywords on both sides
    /// of what a view changes (a keyword cut by a line break, an invisible
    /// character or an escape; a keyword an escape decodes into; `a3t`,
    /// a keyword, inside an escape the view decodes).
    const PIECES: [&str; 18] = [
        "ghp_",
        "xox",
        "b-",
        "sk",
        "_live",
        "s.",
        "://",
        "-----BEGIN",
        " ",
        "\n",
        "\u{200B}",
        "%2F",
        "%67hp_",
        "%a3t",
        "a3",
        "0123456789abcdefABCD",
        "\n    ",
        "\\\r\n  ",
    ];

    /// Views that change a file every few bytes (an escape, an invisible
    /// character or a joined line each, 40,000 to 200,000 changes): the
    /// keywords found near the changes are those of the whole view, and
    /// such a view, whose stretches near its changes hold more than it,
    /// is searched whole.
    #[test]
    fn views_changed_every_few_bytes_have_the_keywords_of_the_whole_view() {
        let detector = &*DETECTOR;
        let reach = detector.longest_keyword - 1;
        for text in [
            "%41".repeat(200_000),
            "ab\u{200B}".repeat(200_000),
            format!("{}\n    BBBB", "A".repeat(20)).repeat(40_000),
            format!("ghp_%67\u{200B}sk{}\n  yyyy ", "x".repeat(16)).repeat(20_000),
        ] {
            let found = detector.keywords_in(text.as_bytes());
            let mut views = 0;
            for view in unfold::views(&text) {
                views += 1;
                let whole = detector.keywords_in(&view.bytes).present();
                let touched: Vec<std::ops::Range<usize>> =
                    view.touched.iter().map(|&at| at..at + 1).collect();
                let (in_text, in_view) = (
                    near(&view.changed, reach, text.len()),
                    near(&touched, reach, view.bytes.len()),
                );
                assert_eq!(in_text.len(), 1, "dense changes make one stretch");
                let near_changes = detector.keywords_near_changes(
                    text.as_bytes(),
                    &found,
                    &view,
                    in_text,
                    in_view,
                );
                assert_eq!(near_changes, whole);
                assert_eq!(detector.keywords_in_view(&text, &found, &view), whole);
            }
            assert!(views > 0);
            assert!(find(&text).is_none());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(512))]

        /// The keywords of each view, found only where it differs from
        /// the text, are those a search of the whole view finds.
        #[test]
        fn a_view_has_the_keywords_a_search_of_it_finds(
            picks in proptest::collection::vec(0usize..PIECES.len(), 0..60),
        ) {
            let text: String = picks.iter().map(|&pick| PIECES[pick]).collect();
            let detector = &*DETECTOR;
            let found = detector.keywords_in(text.as_bytes());
            let reach = detector.longest_keyword - 1;
            for view in unfold::views(&text) {
                let whole = detector.keywords_in(&view.bytes).present();
                proptest::prop_assert_eq!(&detector.keywords_in_view(&text, &found, &view), &whole);
                // The search near the changes alone, however much the view
                // changed.
                let touched: Vec<std::ops::Range<usize>> =
                    view.touched.iter().map(|&at| at..at + 1).collect();
                let near_changes = detector.keywords_near_changes(
                    text.as_bytes(),
                    &found,
                    &view,
                    near(&view.changed, reach, text.len()),
                    near(&touched, reach, view.bytes.len()),
                );
                proptest::prop_assert_eq!(near_changes, whole);
            }
        }
    }

    const HEX: &str = "0123456789abcdef";
    const DIGITS: &str = "0123456789";
    const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";

    /// A deterministic generator of fake secrets (xorshift64*), so that no
    /// real secret and no complete fake one is written in this file.
    struct Fake(u64);

    impl Fake {
        fn new(seed: &str) -> Fake {
            // FNV-1a.
            let hash = seed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
            Fake(hash | 1)
        }

        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        /// `n` characters drawn from `alphabet`.
        fn s(&mut self, alphabet: &str, n: usize) -> String {
            let alphabet: Vec<char> = alphabet.chars().collect();
            (0..n)
                .map(|_| alphabet[(self.next() >> 33) as usize % alphabet.len()])
                .collect()
        }
    }

    fn alnum() -> String {
        format!("{UPPER}{LOWER}{DIGITS}")
    }
    fn b64() -> String {
        format!("{}+/", alnum())
    }
    fn url64() -> String {
        format!("{}_-", alnum())
    }
    fn lower_digits() -> String {
        format!("{LOWER}{DIGITS}")
    }
    fn upper_digits() -> String {
        format!("{UPPER}{DIGITS}")
    }
    fn letters() -> String {
        format!("{UPPER}{LOWER}")
    }

    /// A PEM block; the label is passed apart so that this file never holds
    /// a complete begin marker.
    fn pem(label: &str, body: &str) -> String {
        format!("-----BEGIN {label}-----\n{body}\n-----END {label}-----\n")
    }

    /// Base64 lines of `width` characters, `n` characters in all.
    fn lines(f: &mut Fake, n: usize, width: usize) -> String {
        let text = f.s(&b64(), n);
        let chars: Vec<char> = text.chars().collect();
        chars
            .chunks(width)
            .map(|c| c.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn uuid(f: &mut Fake) -> String {
        format!(
            "{}-{}-{}-{}-{}",
            f.s(HEX, 8),
            f.s(HEX, 4),
            f.s(HEX, 4),
            f.s(HEX, 4),
            f.s(HEX, 12)
        )
    }

    /// A true positive: the rule it must trigger, the text, and the secret
    /// in it (which, cut to 12 characters or half its length, must no longer
    /// trigger the rule).
    struct Sample {
        rule: &'static str,
        text: String,
        secret: String,
        /// The secret stands alone (no surrounding context is needed), so
        /// it is also tried quoted in code and configuration.
        plain: bool,
    }

    fn plain(rule: &'static str, secret: String) -> Sample {
        Sample {
            rule,
            text: secret.clone(),
            secret,
            plain: true,
        }
    }

    fn within(rule: &'static str, text: String, secret: String) -> Sample {
        assert!(text.contains(&secret), "{rule}");
        Sample {
            rule,
            text,
            secret,
            plain: false,
        }
    }

    /// Keyword rules: `name = "secret"`.
    fn named(rule: &'static str, name: &str, secret: String) -> Sample {
        within(rule, format!("{name} = \"{secret}\""), secret)
    }

    /// Every fake secret: at least one per rule, built at run time.
    fn samples() -> Vec<Sample> {
        let f = &mut Fake::new("packer secrets");
        let an = alnum();
        let ld = lower_digits();
        let ud = upper_digits();
        let u64s = url64();
        let mut out = Vec::new();

        // Private keys of every kind.
        for label in [
            "RSA PRIVATE KEY",
            "PRIVATE KEY",
            "EC PRIVATE KEY",
            "DSA PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
        ] {
            let body = lines(f, 64 * 5 + 20, 64);
            out.push(within("private-key", pem(label, &body), body));
        }
        let body = format!(
            "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{}\n\n{}",
            f.s("0123456789ABCDEF", 32),
            lines(f, 64 * 4, 64)
        );
        out.push(within("private-key", pem("RSA PRIVATE KEY", &body), body));
        let body = format!(
            "Version: Keybase OpenPGP v1.0.0\n\n{}\n={}",
            lines(f, 64 * 6, 64),
            f.s(&b64(), 4)
        );
        out.push(within(
            "private-key",
            pem("PGP PRIVATE KEY BLOCK", &body),
            body,
        ));
        // A service-account JSON file: the key on one line, newlines escaped.
        let body = lines(f, 64 * 4, 64).replace('\n', "\\n");
        let key = pem("PRIVATE KEY", &body).replace('\n', "\\n");
        out.push(within(
            "private-key",
            format!("{{\"type\": \"service_account\", \"private_key\": \"{key}\"}}"),
            body,
        ));
        let body = format!("Comment: \"rsa-key-20240101\"\n{}", lines(f, 70 * 8, 70));
        out.push(within(
            "ssh2-private-key",
            format!(
                "---- BEGIN {0} ----\n{body}\n---- END {0} ----\n",
                "SSH2 ENCRYPTED PRIVATE KEY"
            ),
            body,
        ));
        for (version, algorithm, public, private) in
            [(2, "ssh-rsa", 6, 14), (3, "ssh-ed25519", 2, 1)]
        {
            let private_lines = lines(f, 64 * private - 20, 64);
            let text = format!(
                "PuTTY-User-Key-File-{version}: {algorithm}\nEncryption: none\n\
                 Comment: {algorithm}-key-20240101\nPublic-Lines: {public}\n{}\n\
                 Private-Lines: {private}\n{private_lines}\nPrivate-MAC: {}\n",
                lines(f, 64 * public - 10, 64),
                f.s(HEX, 64)
            );
            out.push(within("putty-private-key", text, private_lines));
        }

        // Cloud providers.
        out.push(plain(
            "aws-access-token",
            format!("AKIA{}", f.s(&format!("{UPPER}234567"), 16)),
        ));
        out.push(plain(
            "aws-access-token",
            format!("ASIA{}", f.s(&format!("{UPPER}234567"), 16)),
        ));
        let key = format!("ABSK{}", f.s(&b64(), 132));
        out.push(within(
            "aws-amazon-bedrock-api-key-long-lived",
            format!("AWS_BEARER_TOKEN_BEDROCK={key}\n"),
            key,
        ));
        out.push(plain(
            "aws-amazon-bedrock-api-key-short-lived",
            format!(
                "{}{}{}",
                "bedrock-api-key-",
                "YmVkcm9jay5hbWF6b25hd3MuY29t",
                f.s(&b64(), 200)
            ),
        ));
        out.push(plain("gcp-api-key", format!("AIza{}", f.s(&u64s, 35))));
        let secret = format!("{}8Q~{}", f.s(&an, 3), f.s(&format!("{an}_~.-"), 34));
        out.push(within(
            "azure-ad-client-secret",
            format!("client_secret={secret}\n"),
            secret,
        ));
        out.push(plain(
            "alibaba-access-key-id",
            format!("LTAI{}", f.s(&an, 20)),
        ));
        for prefix in ["dop_v1_", "doo_v1_", "dor_v1_"] {
            let rule = match prefix {
                "dop_v1_" => "digitalocean-pat",
                "doo_v1_" => "digitalocean-access-token",
                _ => "digitalocean-refresh-token",
            };
            out.push(plain(rule, format!("{prefix}{}", f.s(HEX, 64))));
        }
        out.push(plain(
            "hashicorp-tf-api-token",
            format!("{}.atlasv1.{}", f.s(&ld, 14), f.s(&format!("{ld}-_"), 67)),
        ));
        out.push(plain(
            "vault-service-token",
            format!("hvs.{}", f.s(&u64s, 95)),
        ));
        let legacy = format!("s.{}{}", f.s(DIGITS, 1), f.s(&an, 23));
        out.push(within(
            "vault-service-token",
            format!("VAULT_TOKEN={legacy}\n"),
            legacy,
        ));
        out.push(plain(
            "vault-batch-token",
            format!("hvb.{}", f.s(&u64s, 150)),
        ));
        out.push(plain(
            "heroku-api-key-v2",
            format!("HRKU-AA{}", f.s(&u64s, 58)),
        ));
        out.push(plain(
            "dynatrace-api-token",
            format!("dt0c01.{}.{}", f.s(&ud, 24), f.s(&ud, 64)),
        ));
        out.push(plain(
            "flyio-access-token",
            format!("fo1_{}", f.s(&u64s, 43)),
        ));
        let token = format!("fm1r_{}", f.s(&b64(), 120));
        out.push(within(
            "flyio-access-token",
            format!("FLY_API_TOKEN=\"FlyV1 {token}\""),
            token,
        ));
        out.push(plain(
            "flyio-access-token",
            format!("fm2_{}", f.s(&b64(), 150)),
        ));
        out.push(plain(
            "cloudflare-origin-ca-key",
            format!("v1.0-{}-{}", f.s(HEX, 24), f.s(HEX, 146)),
        ));
        out.push(plain(
            "openshift-user-token",
            format!("sha256~{}", f.s(&u64s, 43)),
        ));
        out.push(plain(
            "clickhouse-cloud-api-secret-key",
            format!("4b1d{}", f.s(&an, 38)),
        ));
        out.push(plain(
            "scalingo-api-token",
            format!("tk-us-{}", f.s(&u64s, 48)),
        ));
        out.push(plain(
            "databricks-api-token",
            format!("dapi{}", f.s(HEX, 32)),
        ));
        out.push(plain(
            "databricks-api-token",
            format!("dapi{}-2", f.s(HEX, 32)),
        ));

        // Source hosting and CI.
        for (rule, prefix) in [
            ("github-pat", "ghp_"),
            ("github-oauth", "gho_"),
            ("github-app-token", "ghu_"),
            ("github-app-token", "ghs_"),
            ("github-refresh-token", "ghr_"),
        ] {
            out.push(plain(rule, format!("{prefix}{}", f.s(&an, 36))));
        }
        out.push(plain(
            "github-fine-grained-pat",
            format!("github_pat_{}_{}", f.s(&an, 22), f.s(&an, 59)),
        ));
        for (rule, prefix, n) in [
            ("gitlab-pat", "glpat-", 20),
            ("gitlab-deploy-token", "gldt-", 20),
            ("gitlab-runner-authentication-token", "glrt-", 20),
            ("gitlab-feature-flag-client-token", "glffct-", 20),
            ("gitlab-feed-token", "glft-", 20),
            ("gitlab-incoming-mail-token", "glimt-", 25),
            ("gitlab-kubernetes-agent-token", "glagent-", 50),
            ("gitlab-oauth-app-secret", "gloas-", 64),
            ("gitlab-scim-token", "glsoat-", 20),
            ("gitlab-rrt", "GR1348941", 20),
        ] {
            out.push(plain(rule, format!("{prefix}{}", f.s(&an, n))));
        }
        out.push(plain(
            "gitlab-pat-routable",
            format!("glpat-{}.01{}", f.s(&an, 27), f.s(&ld, 7)),
        ));
        out.push(plain(
            "gitlab-runner-authentication-token-routable",
            format!("glrt-t1_{}.01{}", f.s(&an, 27), f.s(&ld, 7)),
        ));
        out.push(plain("gitlab-ptt", format!("glptt-{}", f.s(HEX, 40))));
        out.push(plain(
            "gitlab-cicd-job-token",
            format!("glcbt-{}_{}", f.s(&an, 5), f.s(&an, 20)),
        ));
        out.push(plain(
            "gitlab-cicd-job-token",
            format!("glcbt-{}_{}", f.s(&an, 2), f.s(&an, 20)),
        ));
        out.push(plain(
            "gitlab-session-cookie",
            format!("_gitlab_session={}", f.s(&ld, 32)),
        ));
        out.push(plain(
            "atlassian-api-token",
            format!("ATATT3{}", f.s(&format!("{u64s}="), 186)),
        ));
        out.push(plain(
            "artifactory-api-key",
            format!("AKCp{}", f.s(&an, 69)),
        ));
        out.push(plain(
            "artifactory-reference-token",
            format!("cmVmd{}", f.s(&an, 59)),
        ));
        out.push(plain(
            "harness-api-key",
            format!("pat.{}.{}.{}", f.s(&u64s, 22), f.s(&an, 24), f.s(&an, 20)),
        ));
        out.push(plain(
            "harness-api-key",
            format!("sat.{}.{}.{}", f.s(&u64s, 22), f.s(&an, 24), f.s(&an, 20)),
        ));
        out.push(plain(
            "octopus-deploy-api-key",
            format!("API-{}", f.s(&ud, 26)),
        ));
        out.push(plain(
            "infracost-api-token",
            format!("ico-{}", f.s(&an, 32)),
        ));
        out.push(plain("prefect-api-token", format!("pnu_{}", f.s(&an, 36))));
        out.push(plain(
            "sourcegraph-access-token",
            format!("sgp_{}_{}", f.s(HEX, 16), f.s(HEX, 40)),
        ));
        out.push(plain(
            "sourcegraph-access-token",
            format!("sgp_local_{}", f.s(HEX, 40)),
        ));
        out.push(plain(
            "sourcegraph-access-token",
            format!("sgp_{}", f.s(HEX, 40)),
        ));
        out.push(plain(
            "intra42-client-secret",
            format!("s-s4t2ud-{}", f.s(HEX, 64)),
        ));

        // Chat and collaboration.
        out.push(plain(
            "slack-bot-token",
            format!(
                "xoxb-{}-{}-{}",
                f.s(DIGITS, 12),
                f.s(DIGITS, 13),
                f.s(&an, 24)
            ),
        ));
        out.push(plain(
            "slack-legacy-bot-token",
            format!("xoxb-{}-{}", f.s(DIGITS, 10), f.s(&letters(), 24)),
        ));
        out.push(plain(
            "slack-user-token",
            format!(
                "xoxp-{}-{}-{}-{}",
                f.s(DIGITS, 11),
                f.s(DIGITS, 12),
                f.s(DIGITS, 12),
                f.s(HEX, 32)
            ),
        ));
        out.push(plain(
            "slack-app-token",
            format!(
                "xapp-1-A{}-{}-{}",
                f.s(&ud, 10),
                f.s(DIGITS, 13),
                f.s(HEX, 64)
            ),
        ));
        out.push(plain(
            "slack-config-access-token",
            format!("xoxe.xoxp-1-{}", f.s(&ud, 164)),
        ));
        out.push(plain(
            "slack-config-access-token",
            format!("xoxe.xoxb-1-{}", f.s(&ud, 166)),
        ));
        out.push(plain(
            "slack-config-refresh-token",
            format!("xoxe-1-{}", f.s(&ud, 146)),
        ));
        out.push(plain(
            "slack-legacy-token",
            format!(
                "xoxs-{}-{}-{}-{}",
                f.s(DIGITS, 10),
                f.s(DIGITS, 11),
                f.s(DIGITS, 12),
                f.s(HEX, 64)
            ),
        ));
        out.push(plain(
            "slack-legacy-workspace-token",
            format!("xoxa-2-{}", f.s(&an, 40)),
        ));
        out.push(plain(
            "slack-legacy-workspace-token",
            format!("xoxr-{}", f.s(&an, 30)),
        ));
        out.push(plain(
            "slack-webhook-url",
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                f.s(&ud, 10),
                f.s(&ud, 10),
                f.s(&an, 24)
            ),
        ));
        out.push(plain(
            "microsoft-teams-webhook",
            format!(
                "https://{}.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{}/{}",
                f.s(LOWER, 8),
                uuid(f),
                uuid(f),
                f.s(&ld, 32),
                uuid(f)
            ),
        ));
        let token = format!("{}:A{}", f.s(DIGITS, 10), f.s(&u64s, 34));
        out.push(named("telegram-bot-api-token", "TELEGRAM_BOT_TOKEN", token));
        out.push(plain(
            "notion-api-token",
            format!("ntn_{}{}", f.s(DIGITS, 11), f.s(&an, 35)),
        ));
        out.push(plain("linear-api-key", format!("lin_api_{}", f.s(&an, 40))));
        out.push(plain(
            "frameio-api-token",
            format!("fio-u-{}", f.s(&u64s, 64)),
        ));
        let token = format!("pat{}.{}", f.s(&an, 14), f.s(HEX, 64));
        out.push(named(
            "airtable-personnal-access-token",
            "AIRTABLE_TOKEN",
            token,
        ));
        let token = format!("tfp_{}", f.s(&u64s, 59));
        out.push(named("typeform-api-token", "typeform_token", token));

        // AI.
        out.push(plain(
            "openai-api-key",
            format!("sk-proj-{}T3BlbkFJ{}", f.s(&u64s, 74), f.s(&an, 74)),
        ));
        out.push(plain(
            "openai-api-key",
            format!("sk-svcacct-{}T3BlbkFJ{}", f.s(&u64s, 58), f.s(&an, 58)),
        ));
        out.push(plain(
            "openai-api-key",
            format!("sk-{}T3BlbkFJ{}", f.s(&an, 20), f.s(&an, 20)),
        ));
        out.push(plain(
            "anthropic-api-key",
            format!("sk-ant-api03-{}AA", f.s(&u64s, 93)),
        ));
        out.push(plain(
            "anthropic-admin-api-key",
            format!("sk-ant-admin01-{}AA", f.s(&u64s, 93)),
        ));
        out.push(plain(
            "perplexity-api-key",
            format!("pplx-{}", f.s(&an, 48)),
        ));
        out.push(plain(
            "huggingface-access-token",
            format!("hf_{}", f.s(&letters(), 34)),
        ));
        out.push(plain(
            "huggingface-organization-api-token",
            format!("api_org_{}", f.s(&letters(), 34)),
        ));

        // Payments and commerce.
        for prefix in ["sk_live_", "sk_test_", "rk_live_", "rk_prod_"] {
            out.push(plain(
                "stripe-access-token",
                format!("{prefix}{}", f.s(&an, 24 + prefix.len())),
            ));
        }
        out.push(plain(
            "square-access-token",
            format!("sq0atp-{}", f.s(&u64s, 22)),
        ));
        out.push(plain(
            "square-access-token",
            format!("EAAA{}", f.s(&u64s, 60)),
        ));
        out.push(plain("square-secret", format!("sq0csp-{}", f.s(&u64s, 43))));
        for (rule, prefix) in [
            ("shopify-access-token", "shpat_"),
            ("shopify-custom-access-token", "shpca_"),
            ("shopify-private-app-access-token", "shppa_"),
            ("shopify-shared-secret", "shpss_"),
        ] {
            out.push(plain(rule, format!("{prefix}{}", f.s(HEX, 32))));
        }
        out.push(plain(
            "shippo-api-token",
            format!("shippo_live_{}", f.s(HEX, 40)),
        ));
        out.push(plain(
            "duffel-api-token",
            format!("duffel_test_{}", f.s(&u64s, 43)),
        ));
        out.push(plain("easypost-api-token", format!("EZAK{}", f.s(&an, 54))));
        out.push(plain(
            "easypost-test-api-token",
            format!("EZTK{}", f.s(&an, 54)),
        ));
        out.push(plain(
            "flutterwave-public-key",
            format!("FLWPUBK_TEST-{}-X", f.s("abcdefgh0123456789", 32)),
        ));
        out.push(plain(
            "flutterwave-secret-key",
            format!("FLWSECK_TEST-{}-X", f.s("abcdefgh0123456789", 32)),
        ));
        out.push(plain(
            "flutterwave-encryption-key",
            format!("FLWSECK_TEST-{}", f.s("abcdefgh0123456789", 12)),
        ));
        let token = format!("live_{}", f.s(&u64s, 40));
        out.push(named(
            "gocardless-api-token",
            "GOCARDLESS_ACCESS_TOKEN",
            token,
        ));
        let token = format!("access-sandbox-{}", uuid(f));
        out.push(named("plaid-api-token", "plaid_access_token", token));

        // Package registries.
        out.push(plain("npm-access-token", format!("npm_{}", f.s(&ld, 36))));
        // (From a generator of its own, so the other samples stay as they
        // were.)
        let password = Fake::new("nuget").s(&an, 16);
        out.push(within(
            "nuget-config-password",
            format!(
                "<packageSourceCredentials>\n  <feed>\n    <add key=\"Username\" value=\"me\" />\n    \
                 <add key=\"ClearTextPassword\" value=\"{password}\" />\n  </feed>\n\
                 </packageSourceCredentials>"
            ),
            password,
        ));
        out.push(plain(
            "pypi-upload-token",
            format!("pypi-AgEIcHlwaS5vcmc{}", f.s(&u64s, 70)),
        ));
        out.push(plain(
            "rubygems-api-token",
            format!("rubygems_{}", f.s(HEX, 48)),
        ));
        out.push(plain(
            "clojars-api-token",
            format!("CLOJARS_{}", f.s(&ld, 60)),
        ));
        let credentials = format!("{}:{}", f.s(HEX, 8), f.s(HEX, 8));
        out.push(within(
            "sidekiq-secret",
            format!("BUNDLE_GEMS__CONTRIBSYS__COM={credentials}\n"),
            credentials.clone(),
        ));
        let credentials = format!("{}:{}", f.s(HEX, 8), f.s(HEX, 8));
        out.push(within(
            "sidekiq-sensitive-url",
            format!("source \"https://{credentials}@gems.contribsys.com/\""),
            credentials,
        ));

        // Email, monitoring and other services.
        out.push(plain(
            "sendgrid-api-token",
            format!("SG.{}.{}", f.s(&u64s, 22), f.s(&u64s, 43)),
        ));
        out.push(plain(
            "sendinblue-api-token",
            format!("xkeysib-{}-{}", f.s(HEX, 64), f.s(&an, 16)),
        ));
        let key = format!("key-{}", f.s(HEX, 32));
        out.push(named("mailgun-private-api-token", "MAILGUN_API_KEY", key));
        let key = format!("pubkey-{}", f.s(HEX, 32));
        out.push(named("mailgun-pub-key", "mailgun_public_key", key));
        let key = format!(
            "{}-{}-{}",
            f.s("abcdefgh0123456789", 32),
            f.s("abcdefgh0123456789", 8),
            f.s("abcdefgh0123456789", 8)
        );
        out.push(named("mailgun-signing-key", "mailgun_signing_key", key));
        out.push(plain(
            "postman-api-token",
            format!("PMAK-{}-{}", f.s(HEX, 24), f.s(HEX, 34)),
        ));
        out.push(plain(
            "grafana-api-key",
            format!("eyJrIjoi{}", f.s(&an, 80)),
        ));
        out.push(plain(
            "grafana-cloud-api-token",
            format!("glc_{}", f.s(&b64(), 60)),
        ));
        out.push(plain(
            "grafana-service-account-token",
            format!("glsa_{}_{}", f.s(&an, 32), f.s(HEX, 8)),
        ));
        out.push(plain(
            "doppler-api-token",
            format!("dp.pt.{}", f.s(&an, 43)),
        ));
        out.push(plain("pulumi-api-token", format!("pul-{}", f.s(HEX, 40))));
        for (rule, prefix) in [
            ("planetscale-api-token", "pscale_tkn_"),
            ("planetscale-oauth-token", "pscale_oauth_"),
            ("planetscale-password", "pscale_pw_"),
        ] {
            out.push(plain(rule, format!("{prefix}{}", f.s(&u64s, 43))));
        }
        out.push(plain(
            "age-secret-key",
            format!(
                "AGE-SECRET-KEY-1{}",
                f.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
            ),
        ));
        out.push(plain(
            "1password-secret-key",
            format!(
                "A3-{}-{}-{}-{}-{}",
                f.s(&ud, 6),
                f.s(&ud, 11),
                f.s(&ud, 5),
                f.s(&ud, 5),
                f.s(&ud, 5)
            ),
        ));
        out.push(plain(
            "1password-secret-key",
            format!(
                "A3-{}-{}-{}-{}-{}-{}",
                f.s(&ud, 6),
                f.s(&ud, 6),
                f.s(&ud, 5),
                f.s(&ud, 5),
                f.s(&ud, 5),
                f.s(&ud, 5)
            ),
        ));
        out.push(plain(
            "1password-service-account-token",
            format!("ops_eyJ{}", f.s(&b64(), 300)),
        ));
        out.push(plain(
            "sentry-user-token",
            format!("sntryu_{}", f.s(HEX, 64)),
        ));
        let claims = format!(
            "{{\"iat\":1718000000.{},\"url\":\"https://sentry.io\",\
             \"region_url\":\"https://us.sentry.io\",\"org\":\"{}\"}}",
            f.s(DIGITS, 6),
            f.s(LOWER, 8)
        );
        let encoded = base64::engine::general_purpose::STANDARD.encode(claims);
        out.push(plain(
            "sentry-org-token",
            format!("sntrys_{encoded}_{}", f.s(&b64(), 43)),
        ));
        out.push(plain(
            "facebook-page-access-token",
            format!("EAAM{}", f.s(&an, 150)),
        ));
        out.push(plain(
            "facebook-page-access-token",
            format!("EAAC{}", f.s(&an, 120)),
        ));
        let token = format!("{}|{}", f.s(DIGITS, 16), f.s(&format!("{ld}-_"), 30));
        out.push(named("facebook-access-token", "facebook_app_token", token));
        out.push(plain(
            "adobe-client-secret",
            format!("p8e-{}", f.s(&an, 32)),
        ));
        out.push(plain(
            "authress-service-client-access-key",
            format!(
                "sc_{}.{}.acc_{}.{}",
                f.s(&ld, 10),
                f.s(&ld, 5),
                f.s(&ld, 20),
                f.s(&an, 60)
            ),
        ));
        out.push(plain(
            "maxmind-license-key",
            format!("{}_{}_mmk", f.s(&an, 6), f.s(&an, 29)),
        ));
        out.push(plain("readme-api-token", format!("rdme_{}", f.s(&ld, 70))));
        for (rule, prefix) in [
            ("settlemint-application-access-token", "sm_aat_"),
            ("settlemint-personal-access-token", "sm_pat_"),
            ("settlemint-service-access-token", "sm_sat_"),
        ] {
            out.push(plain(rule, format!("{prefix}{}", f.s(&an, 16))));
        }
        out.push(plain("twilio-api-key", format!("SK{}", f.s(HEX, 32))));
        let token = format!("dnkey-{}-{}", f.s(&ld, 26), f.s(&ld, 52));
        out.push(named("defined-networking-api-token", "DNKEY_TOKEN", token));
        let token = format!("sl.{}", f.s(&u64s, 135));
        out.push(named(
            "dropbox-short-lived-api-token",
            "dropbox_token",
            token,
        ));
        let token = format!("{}AAAAAAAAAA{}", f.s(&an, 11), f.s(&u64s, 43));
        out.push(named(
            "dropbox-long-lived-api-token",
            "DROPBOX_TOKEN",
            token,
        ));
        let token = format!("pk.{}.{}", f.s(&ld, 60), f.s(&ld, 22));
        out.push(named("mapbox-api-token", "MAPBOX_ACCESS_TOKEN", token));
        let key = format!("NRAK-{}", f.s(&ud, 27));
        out.push(named("new-relic-user-api-key", "NEW_RELIC_API_KEY", key));
        let key = format!("NRII-{}", f.s(&format!("{ld}-"), 32));
        out.push(named("new-relic-insert-key", "newrelic_insert_key", key));
        let key = format!("NRJS-{}", f.s(HEX, 19));
        out.push(named(
            "new-relic-browser-api-token",
            "new_relic_browser",
            key,
        ));
        let token = format!("{}{}", "A".repeat(22), f.s(&an, 90));
        out.push(named("twitter-bearer-token", "TWITTER_BEARER_TOKEN", token));
        let token = format!("t1.{}.{}", f.s(&u64s, 20), f.s(&u64s, 86));
        out.push(named("yandex-access-token", "yandex_iam_token", token));
        let key = format!("AQVN{}", f.s(&u64s, 36));
        out.push(named("yandex-api-key", "YANDEX_API_KEY", key));
        let key = format!("YC{}", f.s(&u64s, 38));
        out.push(named("yandex-aws-access-token", "yandex_access_key", key));

        // Passwords in URLs.
        let password = format!("Xk9#{}", f.s(&an, 8));
        out.push(within(
            "url-credentials",
            format!("DATABASE_URL=postgres://admin:{password}@db.internal:5432/app"),
            password,
        ));
        // A short random password, raw and percent-encoded ('#' is %23).
        for password in ["Xk9#mQ2v", "Xk9%23mQ2v"] {
            out.push(within(
                "url-credentials",
                format!("postgres://admin:{password}@db.internal"),
                password.into(),
            ));
        }
        for (scheme, user, host) in [
            ("postgresql", "app", "10.0.0.12:5432/app"),
            ("mysql", "root", "mysql.prod.internal/shop"),
            (
                "mongodb+srv",
                "svc",
                "cluster0.a1b2c.mongodb.net/?retryWrites=true",
            ),
            ("redis", "", "cache.internal:6379/0"),
            (
                "rediss",
                "default",
                "redis-12345.c1.cloud.redislabs.com:12345",
            ),
            ("amqp", "worker", "rabbit.internal:5672/%2f"),
            ("https", "deploy", "git.example.com/team/repo.git"),
            ("ftp", "backup", "ftp.example.org/dumps"),
            ("smtp", "mailer", "smtp.mailgun.org:587"),
        ] {
            let password = format!("{}{}", f.s(&an, 10), f.s("!#$%^&*", 2));
            out.push(within(
                "url-credentials",
                format!("url = \"{scheme}://{user}:{password}@{host}\"\n"),
                password,
            ));
        }
        out
    }

    /// Ids of every rule that finds a secret in `text`, keywords included.
    fn matching(text: &str) -> Vec<&'static str> {
        let lower = text.to_ascii_lowercase();
        (0..RULES.len())
            .filter(|&index| {
                RULES[index].keywords.iter().any(|k| lower.contains(k))
                    && DETECTOR.rule_finds(index, text.as_bytes())
            })
            .map(|index| RULES[index].id)
            .collect()
    }

    #[test]
    fn every_rule_compiles_and_has_a_keyword() {
        assert_eq!(DETECTOR.rules.len(), RULES.len());
        for rule in RULES {
            assert!(!rule.keywords.is_empty(), "{}", rule.id);
            for keyword in rule.keywords {
                assert_eq!(*keyword, keyword.to_ascii_lowercase(), "{}", rule.id);
                assert!(keyword.len() <= 64, "{}", rule.id);
            }
        }
        let mut ids: Vec<_> = RULES.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len(), "rule ids are unique");
    }

    #[test]
    fn every_rule_finds_its_fake_secrets_and_not_their_first_12_characters() {
        let samples = samples();
        for sample in &samples {
            let mut texts = vec![
                sample.text.clone(),
                format!("# settings\n{}\nother = 1\n", sample.text),
            ];
            if sample.plain {
                texts.push(format!("const KEY: &str = \"{}\";\n", sample.text));
                texts.push(format!("{{\"token\": \"{}\"}}", sample.text));
                texts.push(format!("token: '{}'\n", sample.text));
                texts.push(format!("export TOKEN={}\n", sample.text));
            }
            // A rule tied to a kind of file is tried in such a file.
            let path = match sample.rule {
                "nuget-config-password" => "src/NuGet.Config",
                _ => "src/settings.txt",
            };
            for text in &texts {
                assert!(
                    find_in_file(path, text).is_some(),
                    "{}: nothing found in {text}",
                    sample.rule
                );
                let found = matching(text);
                assert!(
                    found.contains(&sample.rule),
                    "{}: {found:?} in {text}",
                    sample.rule
                );
            }
            // A token's format has a length; a password of eight characters
            // or more is still one when cut.
            if sample.rule == "nuget-config-password" {
                continue;
            }
            let keep = 12.min(sample.secret.len() / 2);
            let cut = sample.text.replace(&sample.secret, &sample.secret[..keep]);
            let found = matching(&cut);
            assert!(!found.contains(&sample.rule), "{}: {cut}", sample.rule);
        }
        // Every rule is covered, and the secrets are distinct.
        for rule in RULES {
            assert!(
                samples.iter().any(|s| s.rule == rule.id),
                "no sample for {}",
                rule.id
            );
        }
        let mut secrets: Vec<_> = samples.iter().map(|s| s.text.as_str()).collect();
        secrets.sort_unstable();
        secrets.dedup();
        assert_eq!(secrets.len(), samples.len());
        assert!(samples.len() >= 150, "{} samples", samples.len());
    }

    #[test]
    fn a_rule_tied_to_a_kind_of_file_finds_only_in_such_files() {
        let text = "<add key=\"ClearTextPassword\" value=\"Zq7wXk2PmR9tLc4B\" />";
        for path in ["NuGet.Config", "nuget.config", "deploy/NUGET.CONFIG"] {
            assert_eq!(
                find_in_file(path, text).map(|r| r.id),
                Some("nuget-config-password"),
                "{path}"
            );
        }
        for path in ["docs/nuget.md", "NuGet.Config.example"] {
            assert_eq!(find_in_file(path, text).map(|r| r.id), None, "{path}");
        }
        assert!(find(text).is_none());
        // Microsoft's documented examples and environment variables.
        for value in ["33f!!lloppa", "%NUGET_PASSWORD%"] {
            let text = format!("<add key=\"ClearTextPassword\" value=\"{value}\" />");
            assert!(find_in_file("NuGet.Config", &text).is_none(), "{value}");
        }
    }

    #[test]
    fn a_secret_broken_by_a_line_an_invisible_character_or_escapes_is_found() {
        let f = &mut Fake::new("unfolded");
        let an = alnum();
        let github = format!("ghp_{}", f.s(&an, 36));
        let (head, tail) = github.split_at(20);
        let azure = format!("{}8Q~{}", f.s(&an, 3), f.s(&an, 32));
        for text in [
            // Wrapped where the line ends, indented, or with a backslash.
            format!("token: {head}\n       {tail}\n"),
            format!("export GH_TOKEN={head}\\\n{tail}\n"),
            // A zero-width space or a soft hyphen inside.
            format!("token: {head}\u{200B}{tail}\n"),
            format!("token: {head}\u{00AD}{tail}\n"),
        ] {
            assert_eq!(find(&text).map(|r| r.id), Some("github-pat"), "{text:?}");
        }
        // Percent-encoded, as in a URL's query (`~` is %7E).
        let encoded = azure.replace('~', "%7E");
        assert_eq!(
            find(&format!("client_secret={azure}\n")).map(|r| r.id),
            Some("azure-ad-client-secret")
        );
        let text = format!("https://login.example/token?client_secret={encoded}\n");
        assert_eq!(
            find(&text).map(|r| r.id),
            Some("azure-ad-client-secret"),
            "{text}"
        );
        // What is only prose or code stays clean.
        for text in [
            "fn main() {\n    let configuration = load_configuration_file(path)\n        .unwrap();\n}\n",
            "The token must be\u{200B}renewed every 90 days; see %2Fdocs%2Ftokens.\n",
        ] {
            assert_eq!(find(text).map(|r| r.id), None, "{text:?}");
        }
    }

    #[test]
    fn a_secret_in_a_file_name_is_found() {
        let f = &mut Fake::new("names");
        let an = alnum();
        for (path, rule) in [
            (format!("ghp_{}", f.s(&an, 36)), "github-pat"),
            (format!("docs/ghp_{}.txt", f.s(&an, 36)), "github-pat"),
            (format!("keys/AIza{}.json", f.s(&an, 35)), "gcp-api-key"),
            (
                format!("x\\sk_live_{}.env", f.s(&an, 24)),
                "stripe-access-token",
            ),
            (
                format!("backup/glpat-{}/notes.md", f.s(&an, 20)),
                "gitlab-pat",
            ),
        ] {
            assert_eq!(find_in_name(&path).map(|r| r.id), Some(rule), "{path}");
        }
        for path in [
            "src/main.rs",
            "src/collect/secrets.rs",
            "tests/snapshots/cli__pack_ghp.snap",
            "docs/AKIAIOSFODNN7EXAMPLE.md",
            ".env.example",
            "assets/4b1d_logo.png",
            "node_modules/sk-ant-api03/index.js",
        ] {
            assert_eq!(find_in_name(path).map(|r| r.id), None, "{path}");
        }
    }

    #[test]
    fn ordinary_code_documentation_and_placeholders_are_not_secrets() {
        let f = &mut Fake::new("false positives");
        let mut texts: Vec<String> = [
            "fn main() { println!(\"hello\"); }",
            "let key = std::env::var(\"OPENAI_API_KEY\")?;",
            "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "key = AKIAXXXXXXXXXXXXXXXX",
            "msgstr \"Näytä asiakirjamallikansio.\"",
            "TODAYINASIAASACKOFRICEFELLOVER",
            "token: ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "github_pat_xxxxxxxxxxxxxxxxxxxxxx_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "glpat-XXXXXXXXXXX-XXXXXXXX",
            "glpat-xxxxxxxx-xxxxxxxxxxxxxxxxxx.xxxxxxxxx",
            "glptt-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "sk_test_abcdefghijklmnopqrstuvwxyz",
            "STRIPE_SECRET_KEY=sk_test_XXXXXXXXXXXXXXXXXXXXXXXX",
            "\"token1\": \"xoxp-1234567890\"",
            "\"token2\": \"xoxp-XXXXXXXXXX-XXXXXXXXXX-XXXXXXXXXXX-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\"",
            "\"token3\": \"xoxp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d\"",
            "\"token4\": \"xoxp-572370529330-573807301142-572331691188-####################\"",
            "https://docs.google.com/document/d/1W7KCxOxP-1Fy5EyF2lbJGE2WuKmu5v0suYqoHas1jRM",
            "sk-ant-api03-abc123xyz-456de-klMnopqrstuvwx-3456yza789bcde-1234fghijklmnopAA",
            "api_key = \"fo1_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
            "pub const MINIDUMP_SYSMEMINFO1_PERF_CCTOTALDIRTYPAGES_CCDIRTYPAGETHRESHOLD: u32 = 4u32;",
            "<input type=\"hidden\" name=\"authenticity_token\" value=\"7SWa-Fo1_hsC6oovfBsJFLGPUl2EhkSWPbJhWANwgaJWBDl1vxd9VNqXTNAefsJqzIRYaZEfYZLffa31rw8zJA\" autocomplete=\"off\" />",
            "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            ".ui.visible.right.sidebar~.ui.visible.left.sidebar~.pusher{transform:translate3d(0,0,0)}",
            "'url': 'http://www.2doc.nl/speel~VARA_101375237~mh17-het-verdriet-van-nederland~.html',",
            "'#!/registries/5/portainer.demo~2Fportainerregistrytesting~2Falpine',",
            "client_secret=bP88Q~xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "aws-cli@sha256:eaaa7b11777babe28e6133a8b19ff71cea687e0d7f05158dee95a71f76ce3d00",
            "  checksum: eaac4cf978b6fbd480f1092cab8b233c9b949bcabfc9b598dd79a758f7243c28765ef7639c876fa72940dac687181b35486ea01ff7df3e65ce3848c64822c581",
            "key = adf4b1dbRdW3rOcB7xLthrM4BTBGK1qPLkHigpN1bXD6z",
            "glc_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "   API_KEY=\"glc_111111111111111111111111111111111111111111=\"",
            "static void GLC_CreateLightmapTextureArray(void);",
            "s.xxxxxxxxxxxxxxxxxxxxxxxx",
            "s.THISSTRINGISALLUPPERCASE",
            "s.thisstringisalllowercase",
            "s.AcceptanceTimeoutSeconds ",
            "s.makeKubeConfigController = args",
            "INFO 4 --- [           main] o.s.b.f.s.DefaultListableBeanFactory     : Overriding bean definition for bean",
            "A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX",
            "A3-xXXXXX-XXXXXX-XXXXX-XXXXX-XXXXX-XXXXX",
            "DATABRICKS_TOKEN=dapi123456789012345678a9bc01234defg5",
            "getPagesInConfluenceSpace,searchConfluenceUsingCql",
            "ABSKQmVkcm9ja0FQSUtleS1EXAMPLE",
            "bedrock-api-key-",
            "CO_API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "heroku_api_key = \"832d2129-a846-4e27-99f4-7004b6ad53ef\"",
            "discord_client_id = \"000000000000000000\"",
            "password = \"hunter2\"",
            "let digest = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\";",
            "commit 31c293a0b4f1d7f7c1a3a8d0c6d1c0f3b2a1e9d8",
            "id: 123e4567-e89b-12d3-a456-426614174000",
            "def api_key(self):\n    return os.environ[\"SENDGRID_API_KEY\"]\n",
            "const TOKEN = process.env.SLACK_BOT_TOKEN;",
            "SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "NPM_TOKEN=npm_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
            "export ANTHROPIC_API_KEY=sk-ant-...",
            "OPENAI_API_KEY=sk-...",
            "let mask = 0xFFFF_0000; // SKIP\n",
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        // gitleaks' own examples that are too short or not random enough.
        texts.push(format!("ops_eyJ{}", "x".repeat(300)));
        texts.push(format!("hvs.{}", "x".repeat(95)));
        texts.push(format!("sntryu_{}", "a".repeat(64)));
        texts.push(format!("AKCp{}", "X".repeat(69)));
        // Private key markers without a key between them: placeholders and
        // code that parses PEM.
        texts.push(pem("PRIVATE KEY", "anything"));
        texts.push(pem("RSA PRIVATE KEY", "..."));
        texts.push(pem(
            "RSA PRIVATE KEY",
            "MIIEpAIBAAKCAQEA...\n...\n...base64 data...",
        ));
        texts.push(format!(
            "{}{}",
            "-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----"
        ));
        texts.push(format!(
            "const BEGIN: &str = \"-----BEGIN {0}-----\";\n\
             /// Everything between the markers is base64; the markers name the key type.\n\
             fn strip_armour(text: &str) -> Option<&str> {{ text.strip_prefix(BEGIN) }}\n\
             const END: &str = \"-----END {0}-----\";\n",
            "RSA PRIVATE KEY"
        ));
        // Public keys and certificates are not private keys.
        texts.push(pem("PUBLIC KEY", &lines(f, 64 * 5, 64)));
        texts.push(pem("CERTIFICATE", &lines(f, 64 * 12, 64)));
        // Lock files and hashes.
        for _ in 0..20 {
            texts.push(format!(
                "[[package]]\nname = \"regex\"\nversion = \"1.11.1\"\n\
                 source = \"registry+https://github.com/rust-lang/crates.io-index\"\n\
                 checksum = \"{}\"\n",
                f.s(HEX, 64)
            ));
            let sha512 = f.s(&b64(), 86);
            texts.push(format!(
                "    \"node_modules/left-pad\": {{\n      \"version\": \"1.3.0\",\n      \
                 \"resolved\": \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz\",\n      \
                 \"integrity\": \"sha512-{sha512}==\"\n    }},\n"
            ));
            texts.push(format!(
                "golang.org/x/text v0.3.7 h1:{}=\n",
                f.s(&b64(), 43)
            ));
            texts.push(format!("sha1 {}  sha256 {}", f.s(HEX, 40), f.s(HEX, 64)));
            texts.push(format!("{{\"id\": \"{}\"}}", uuid(f)));
        }
        // A base64 blob as an SVG or a test fixture holds it.
        texts.push(format!(
            "<img src=\"data:image/png;base64,{}\"/>",
            f.s(&b64(), 4000)
        ));
        texts.push(lines(f, 76 * 200, 76));
        // Documentation's URL credentials.
        for url in [
            "postgres://user:password@localhost:5432/db",
            "postgresql://postgres:mysecretpassword@localhost",
            "mongodb+srv://admin:<password>@cluster0.mongodb.net/test",
            "mongodb+srv://admin:<db_password>@cluster0.abcde.mongodb.net/",
            "redis://:${REDIS_PASSWORD}@redis:6379",
            "amqp://guest:guest@localhost:5672/",
            "https://user:****@example.com/",
            "mysql://root:root@127.0.0.1:3306/test",
            "https://{user}:{password}@host/path",
            "format!(\"{}://{}:{}@{}\", scheme, user, password, host)",
            "fmt.Sprintf(\"postgres://%s:%s@%s/%s\", user, pass, host, db)",
            "f\"postgresql://{user}:{password}@{host}:{port}/{db}\"",
            "http://[::1]:8080/path",
            "git clone https://x-access-token:${{ secrets.GITHUB_TOKEN }}@github.com/o/r",
            "smtp://user:pass@smtp.example.com",
            "postgres://app:P@ssw0rd@db",
            "postgres://admin:Passw0rd!@db.internal",
            "postgres://admin:Secret123!@db.internal",
            "postgres://user:s3cr3t@localhost/db",
            "ftp://anonymous:anonymous@ftp.example.org",
            "postgres://${DB_USER}:${DB_PASS}@${DB_HOST}/${DB_NAME}",
            "DATABASE_URL=postgres://app:$DATABASE_PASSWORD@db/app",
            "DATABASE_URL=postgres://app:$POSTGRES_PASS@db/app",
            "redis://default:%REDIS_PASSWORD%@cache",
            "postgresql://[user[:password]@][netloc][:port][/dbname]",
            "jdbc:postgresql://localhost:5432/db?user=fred&password=secret",
            "https://user:your_password_here@example.com",
            "https://oauth2:glpat-xxxxxxxxxxxxxxxxxxxx@gitlab.com/o/r.git",
            "amqp://user:changeme123@rabbit:5672",
            "https://john.doe@example.com:8443/",
            "see http://localhost:3000 and mailto:root@localhost",
            // URL parsers' test data: odd characters, percent-encoded.
            "dbtype://username:apples%2Foranges@hostspec/database",
            "dbtype://username:apples%40oranges%40%40@hostspec/database",
            "\"dbtype://user🐍測試:pass🐍測試@hostspec:499?query=but_no_db\",",
            "\"href\": \"http://&a:foo(b%5Dc@d:2/\"",
            "\"href\": \"https://user:pass%5B%7F@foo/bar\"",
        ] {
            texts.push(url.to_owned());
        }
        for text in &texts {
            assert_eq!(find(text).map(|r| r.id), None, "{text}");
        }
    }
}
