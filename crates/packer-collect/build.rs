//! Turns the secret rules (`src/secrets/rules.toml`) into the Rust table
//! `secrets::rules` includes, so that nothing is parsed at run time,
//! and refuses to build when a rule is malformed: a syntax error, an
//! unknown or missing key, a duplicate id, a keyword that is empty, not
//! lower case or longer than 64 bytes, a secret group the regex does not
//! have, a stop-word not in lower case, or a regex (a rule's, its path's or
//! an allow-list's) that the `regex` crate cannot compile as `secrets`
//! compiles it at run time.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Deserialize;

const RULES: &str = "src/secrets/rules.toml";

/// The file: gitleaks' global allow-list, then the rules.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    allowlist: GlobalAllow,
    rules: Vec<Rule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GlobalAllow {
    regexes: Vec<String>,
    stopwords: Vec<String>,
}

/// One rule, with gitleaks' key names.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Rule {
    id: String,
    description: String,
    regex: String,
    #[serde(default)]
    entropy: f64,
    keywords: Vec<String>,
    #[serde(default)]
    secret_group: usize,
    #[serde(default)]
    path: String,
    #[serde(default)]
    check: Option<Check>,
    #[serde(default)]
    allowlist: Option<Allow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
enum Check {
    Base64Run(usize),
    UrlPassword,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Allow {
    regexes: Vec<String>,
}

/// As `secrets` compiles a rule's regex and its allow-lists: ASCII-only,
/// as Go's RE2 is.
fn ascii(pattern: &str) -> String {
    format!("(?-u){pattern}")
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed={RULES}");
    let text = std::fs::read_to_string(RULES).unwrap_or_else(|e| fail(&[format!("{e}")]));
    let file: File = toml::from_str(&text).unwrap_or_else(|e| fail(&[e.to_string()]));
    let problems = check(&file);
    if !problems.is_empty() {
        fail(&problems);
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("secret_rules.rs"), rust(&file)).expect("OUT_DIR is writable");
}

fn fail(problems: &[String]) -> ! {
    for problem in problems {
        eprintln!("error: {RULES}: {problem}");
    }
    std::process::exit(1)
}

/// Everything wrong with the rules, each naming its rule.
fn check(file: &File) -> Vec<String> {
    let mut problems = Vec::new();
    let mut compile = |what: &str, pattern: &str, unicode: bool| {
        let pattern = if unicode {
            pattern.to_owned()
        } else {
            ascii(pattern)
        };
        match regex::bytes::Regex::new(&pattern) {
            Ok(regex) => Some(regex),
            Err(e) => {
                problems.push(format!("{what} does not compile: {e}"));
                None
            }
        }
    };
    for pattern in &file.allowlist.regexes {
        compile("the global allow-list", pattern, false);
    }
    let mut more = Vec::new();
    for word in &file.allowlist.stopwords {
        if word.is_empty() || *word != word.to_ascii_lowercase() {
            more.push(format!("stop-word {word:?} is empty or not in lower case"));
        }
    }
    let mut ids = HashSet::new();
    for rule in &file.rules {
        let id = &rule.id;
        if id.is_empty()
            || !id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            more.push(format!(
                "rule id {id:?} is not lower-case words joined by `-`"
            ));
        }
        if !ids.insert(id) {
            more.push(format!("rule {id} is defined twice"));
        }
        if rule.description.is_empty() {
            more.push(format!("rule {id} has no description"));
        }
        if let Some(regex) = compile(&format!("rule {id}'s regex"), &rule.regex, false)
            && rule.secret_group >= regex.captures_len()
        {
            more.push(format!(
                "rule {id}'s secretGroup {} is not a group of its regex",
                rule.secret_group
            ));
        }
        if !(rule.entropy.is_finite() && rule.entropy >= 0.0) {
            more.push(format!("rule {id}'s entropy is not a number of bits"));
        }
        if rule.keywords.is_empty() {
            more.push(format!("rule {id} has no keyword"));
        }
        for keyword in &rule.keywords {
            if keyword.is_empty() || keyword.len() > 64 || *keyword != keyword.to_ascii_lowercase()
            {
                more.push(format!(
                    "rule {id}'s keyword {keyword:?} is empty, longer than 64 bytes or not in lower case"
                ));
            }
        }
        if !rule.path.is_empty() {
            compile(&format!("rule {id}'s path"), &rule.path, true);
        }
        if let Some(Check::Base64Run(0)) = rule.check {
            more.push(format!("rule {id}'s base64-run is 0"));
        }
        if let Some(allow) = &rule.allowlist {
            if allow.regexes.is_empty() {
                more.push(format!("rule {id}'s allow-list is empty"));
            }
            for pattern in &allow.regexes {
                compile(&format!("rule {id}'s allow-list"), pattern, false);
            }
        }
    }
    problems.extend(more);
    problems
}

/// The table as Rust: `RULES`, each rule's allow-list as `ALLOW_<ID>`,
/// `GLOBAL_ALLOW` and `STOP_WORDS`. Strings are written with `{:?}`, a
/// Rust string literal of the same bytes.
fn rust(file: &File) -> String {
    let list = |items: &[String]| {
        let items: Vec<String> = items.iter().map(|item| format!("{item:?}")).collect();
        format!("&[{}]", items.join(", "))
    };
    let allow_name = |id: &str| format!("ALLOW_{}", id.replace('-', "_").to_ascii_uppercase());
    let mut out = format!("// Written by build.rs from {RULES}.\n\n");
    out.push_str("/// Every rule, in the order they are tried.\npub static RULES: &[Rule] = &[\n");
    for rule in &file.rules {
        let check = match rule.check {
            None => "Check::None".to_owned(),
            Some(Check::Base64Run(length)) => format!("Check::Base64Run({length})"),
            Some(Check::UrlPassword) => "Check::UrlPassword".to_owned(),
        };
        let allow = match rule.allowlist {
            Some(_) => allow_name(&rule.id),
            None => "&[]".to_owned(),
        };
        writeln!(
            out,
            "    Rule {{\n        id: {:?},\n        description: {:?},\n        pattern: {:?},\n        \
             entropy: {:?},\n        keywords: {},\n        allow: {allow},\n        \
             secret_group: {},\n        check: {check},\n        path: {:?},\n    }},",
            rule.id,
            rule.description,
            rule.regex,
            rule.entropy,
            list(&rule.keywords),
            rule.secret_group,
            rule.path,
        )
        .expect("a String takes any write");
    }
    out.push_str("];\n");
    for rule in &file.rules {
        if let Some(allow) = &rule.allowlist {
            writeln!(
                out,
                "\n/// Rule `{}`'s allow-list.\nconst {}: &[&str] = {};",
                rule.id,
                allow_name(&rule.id),
                list(&allow.regexes)
            )
            .expect("a String takes any write");
        }
    }
    writeln!(
        out,
        "\n/// gitleaks' global allow-list for candidate secrets.\npub(super) const GLOBAL_ALLOW: &[&str] = {};\n\n\
         /// gitleaks' global stop-words: a candidate containing one is a placeholder.\n\
         pub(super) const STOP_WORDS: &[&str] = {};",
        list(&file.allowlist.regexes),
        list(&file.allowlist.stopwords)
    )
    .expect("a String takes any write");
    out
}
