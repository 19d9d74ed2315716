//! High-confidence secret detection, so that a key never goes into a prompt
//! unnoticed.
//!
//! The rules are a subset of gitleaks' default rule set
//! (<https://github.com/gitleaks/gitleaks/blob/master/config/gitleaks.toml>,
//! MIT licence, Copyright (c) 2019 Zachary Rice), taken at commit
//! `b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b`: each rule keeps gitleaks' id,
//! pattern and minimum Shannon entropy. Only rules whose pattern is a
//! distinctive, vendor-issued format (a fixed prefix or a fixed structure)
//! are taken; gitleaks' keyword-context and generic rules
//! (`generic-api-key`, `jwt`, `twilio-api-key`, the `…-api-key` rules that
//! need a vendor name nearby) are left out because they flag ordinary code
//! and documentation too often for a tool that skips whole files.
//!
//! False positives are kept low the way gitleaks does it: a candidate must
//! reach the rule's entropy, and gitleaks' global allow-list (placeholders
//! made of one repeated character, template variables, the stop-words) and
//! the rule's own allow-list (AWS's documented `…EXAMPLE` keys) let a
//! candidate through.

use std::sync::LazyLock;

use regex::bytes::{Regex, RegexSet};

/// One detection rule.
#[derive(Debug)]
pub struct Rule {
    /// gitleaks' rule id, e.g. `github-pat`.
    pub id: &'static str,
    /// What the rule finds, for the documentation.
    pub description: &'static str,
    /// The pattern; group 1, when present, is the secret itself.
    pattern: &'static str,
    /// The minimum Shannon entropy (bits per character) of the secret.
    entropy: f64,
    /// Secrets matching this are documented examples, not secrets.
    allow: Option<&'static str>,
}

/// The trailing context gitleaks uses for keys with no fixed length.
macro_rules! end {
    () => {
        r#"(?:[\x60'"\s;]|\\[nr]|$)"#
    };
}

/// Every rule, in the order they are tried.
pub static RULES: &[Rule] = &[
    Rule {
        id: "private-key",
        description: "a PEM private key block (RSA, EC, DSA, OpenSSH, PGP, …)",
        pattern: r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----",
        entropy: 0.0,
        allow: None,
    },
    Rule {
        id: "aws-access-token",
        description: "an AWS access key id (AKIA…, ASIA…)",
        pattern: r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
        entropy: 3.0,
        allow: Some(r".+EXAMPLE$"),
    },
    Rule {
        id: "github-pat",
        description: "a GitHub personal access token (ghp_)",
        pattern: r"ghp_[0-9a-zA-Z]{36}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "github-fine-grained-pat",
        description: "a GitHub fine-grained personal access token (github_pat_)",
        pattern: r"github_pat_\w{82}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "github-oauth",
        description: "a GitHub OAuth access token (gho_)",
        pattern: r"gho_[0-9a-zA-Z]{36}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "github-app-token",
        description: "a GitHub App token (ghu_, ghs_)",
        pattern: r"(?:ghu|ghs)_[0-9a-zA-Z]{36}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "github-refresh-token",
        description: "a GitHub refresh token (ghr_)",
        pattern: r"ghr_[0-9a-zA-Z]{36}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "gitlab-pat",
        description: "a GitLab personal access token (glpat-)",
        pattern: r"glpat-[\w-]{20}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "gitlab-ptt",
        description: "a GitLab pipeline trigger token (glptt-)",
        pattern: r"glptt-[0-9a-f]{40}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "gitlab-rrt",
        description: "a GitLab runner registration token (GR1348941)",
        pattern: r"GR1348941[\w-]{20}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "gitlab-deploy-token",
        description: "a GitLab deploy token (gldt-)",
        pattern: r"gldt-[0-9a-zA-Z_\-]{20}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "gitlab-runner-authentication-token",
        description: "a GitLab runner authentication token (glrt-)",
        pattern: r"glrt-[0-9a-zA-Z_\-]{20}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "slack-bot-token",
        description: "a Slack bot token (xoxb-)",
        pattern: r"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "slack-user-token",
        description: "a Slack user token (xoxp-, xoxe-)",
        pattern: r"xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}",
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "slack-app-token",
        description: "a Slack app-level token (xapp-)",
        pattern: r"(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+",
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "slack-legacy-token",
        description: "a Slack legacy token (xoxo-, xoxs-)",
        pattern: r"xox[os]-\d+-\d+-\d+-[a-fA-F\d]+",
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "slack-webhook-url",
        description: "a Slack incoming-webhook URL",
        pattern: r"(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}",
        entropy: 0.0,
        allow: None,
    },
    Rule {
        id: "openai-api-key",
        description: "an OpenAI API key (sk-…T3BlbkFJ…)",
        pattern: concat!(
            r"\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})",
            end!()
        ),
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "anthropic-api-key",
        description: "an Anthropic API key (sk-ant-api03-)",
        pattern: concat!(r"\b(sk-ant-api03-[a-zA-Z0-9_\-]{93}AA)", end!()),
        entropy: 0.0,
        allow: None,
    },
    Rule {
        id: "anthropic-admin-api-key",
        description: "an Anthropic admin API key (sk-ant-admin01-)",
        pattern: concat!(r"\b(sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA)", end!()),
        entropy: 0.0,
        allow: None,
    },
    Rule {
        id: "stripe-access-token",
        description: "a Stripe secret or restricted key (sk_live_, rk_test_, …)",
        pattern: concat!(
            r"\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})",
            end!()
        ),
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "gcp-api-key",
        description: "a Google Cloud API key (AIza)",
        pattern: concat!(r"\b(AIza[\w-]{35})", end!()),
        entropy: 4.0,
        allow: None,
    },
    Rule {
        id: "npm-access-token",
        description: "an npm access token (npm_)",
        pattern: concat!(r"(?i)\b(npm_[a-z0-9]{36})", end!()),
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "pypi-upload-token",
        description: "a PyPI upload token (pypi-AgEIcHlwaS5vcmc)",
        pattern: r"pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}",
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "huggingface-access-token",
        description: "a Hugging Face access token (hf_)",
        pattern: concat!(r"\b(hf_(?i:[a-z]{34}))", end!()),
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "sendgrid-api-token",
        description: "a SendGrid API key (SG.)",
        pattern: concat!(r"\b(SG\.(?i)[a-z0-9=_\-\.]{66})", end!()),
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "digitalocean-pat",
        description: "a DigitalOcean personal access token (dop_v1_)",
        pattern: concat!(r"\b(dop_v1_[a-f0-9]{64})", end!()),
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "shopify-access-token",
        description: "a Shopify access token (shpat_)",
        pattern: r"shpat_[a-fA-F0-9]{32}",
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "databricks-api-token",
        description: "a Databricks API token (dapi)",
        pattern: concat!(r"\b(dapi[a-f0-9]{32}(?:-\d)?)", end!()),
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "postman-api-token",
        description: "a Postman API key (PMAK-)",
        pattern: concat!(r"\b(PMAK-(?i)[a-f0-9]{24}\-[a-f0-9]{34})", end!()),
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "grafana-service-account-token",
        description: "a Grafana service account token (glsa_)",
        pattern: concat!(r"(?i)\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})", end!()),
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "doppler-api-token",
        description: "a Doppler API token (dp.pt.)",
        pattern: r"dp\.pt\.(?i)[a-z0-9]{43}",
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "linear-api-key",
        description: "a Linear API key (lin_api_)",
        pattern: r"lin_api_(?i)[a-z0-9]{40}",
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "pulumi-api-token",
        description: "a Pulumi access token (pul-)",
        pattern: concat!(r"\b(pul-[a-f0-9]{40})", end!()),
        entropy: 2.0,
        allow: None,
    },
    Rule {
        id: "planetscale-api-token",
        description: "a PlanetScale API token (pscale_tkn_)",
        pattern: concat!(r"\b(pscale_tkn_(?i)[\w=\.-]{32,64})", end!()),
        entropy: 3.0,
        allow: None,
    },
    Rule {
        id: "hashicorp-tf-api-token",
        description: "a Terraform Cloud / Enterprise API token (….atlasv1.…)",
        pattern: r"(?i)[a-z0-9]{14}\.(?-i:atlasv1)\.[a-z0-9\-_=]{60,70}",
        entropy: 3.5,
        allow: None,
    },
    Rule {
        id: "age-secret-key",
        description: "an age encryption secret key (AGE-SECRET-KEY-1)",
        pattern: r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        entropy: 0.0,
        allow: None,
    },
];

/// gitleaks' global allow-list for candidate secrets: placeholders made of
/// one repeated character, and template or environment variables.
const GLOBAL_ALLOW: &[&str] = &[
    r"^(?i:a+|b+|c+|d+|e+|f+|g+|h+|i+|j+|k+|l+|m+|n+|o+|p+|q+|r+|s+|t+|u+|v+|w+|x+|y+|z+|\*+|\.+)$",
    r"^\$(?:\d+|\{\d+\})$",
    r"^\$(?:[A-Z_]+|[a-z_]+)$",
    r"^\$\{(?:[A-Z_]+|[a-z_]+)\}$",
    r"^\{\{[ \t]*[\w ().|]+[ \t]*\}\}$",
];

/// gitleaks' global stop-words: a candidate containing one is a placeholder.
const STOP_WORDS: &[&str] = &[
    "014df517-39d1-4453-b7b3-9930c563627c",
    "abcdefghijklmnopqrstuvwxyz",
];

struct Compiled {
    set: RegexSet,
    rules: Vec<(Regex, Option<Regex>)>,
    global_allow: RegexSet,
}

/// gitleaks' patterns are Go (RE2) syntax, where `\w`, `\s`, `\d`, `\b`
/// and case folding are ASCII-only; Rust's are Unicode unless `(?-u)`.
fn ascii(pattern: &str) -> String {
    format!("(?-u){pattern}")
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    // The patterns are constants checked by the tests; a failure here is a
    // bug, caught as an internal error.
    let set = RegexSet::new(RULES.iter().map(|r| ascii(r.pattern))).expect("secret rules compile");
    let rules = RULES
        .iter()
        .map(|rule| {
            let regex = Regex::new(&ascii(rule.pattern)).expect("secret rule compiles");
            let allow = rule
                .allow
                .map(|allow| Regex::new(allow).expect("secret allow-list compiles"));
            (regex, allow)
        })
        .collect();
    let global_allow = RegexSet::new(GLOBAL_ALLOW).expect("global allow-list compiles");
    Compiled {
        set,
        rules,
        global_allow,
    }
});

/// The first rule (in [`RULES`] order) that finds a secret in `text`.
pub fn find(text: &str) -> Option<&'static Rule> {
    let compiled = &*COMPILED;
    let text = text.as_bytes();
    let candidates = compiled.set.matches(text);
    candidates
        .iter()
        .map(|index| (index, &RULES[index]))
        .find_map(|(index, rule)| {
            let (regex, allow) = &compiled.rules[index];
            regex
                .captures_iter(text)
                .any(|captures| {
                    let secret = captures
                        .get(1)
                        .or_else(|| captures.get(0))
                        .map_or(&b""[..], |m| m.as_bytes());
                    is_secret(secret, rule, allow.as_ref(), &compiled.global_allow)
                })
                .then_some(rule)
        })
}

fn is_secret(secret: &[u8], rule: &Rule, allow: Option<&Regex>, global: &RegexSet) -> bool {
    if shannon_entropy(secret) < rule.entropy {
        return false;
    }
    if allow.is_some_and(|allow| allow.is_match(secret)) || global.is_match(secret) {
        return false;
    }
    let lower = secret.to_ascii_lowercase();
    !STOP_WORDS
        .iter()
        .any(|word| lower.windows(word.len()).any(|w| w == word.as_bytes()))
}

/// Shannon entropy in bits per byte, as gitleaks computes it.
fn shannon_entropy(text: &[u8]) -> f64 {
    if text.is_empty() {
        return 0.0;
    }
    let mut counts = [0usize; 256];
    for &byte in text {
        counts[usize::from(byte)] += 1;
    }
    let length = text.len() as f64;
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = count as f64 / length;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        assert_eq!(COMPILED.rules.len(), RULES.len());
    }

    #[test]
    fn entropy_matches_the_textbook_values() {
        assert_eq!(shannon_entropy(b"aaaa"), 0.0);
        assert_eq!(shannon_entropy(b"abab"), 1.0);
        assert_eq!(shannon_entropy(b"abcd"), 2.0);
    }

    #[test]
    fn ordinary_code_and_placeholders_are_not_secrets() {
        for text in [
            "fn main() { println!(\"hello\"); }",
            "let key = std::env::var(\"OPENAI_API_KEY\")?;",
            "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
            "token: ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
            "sk_test_abcdefghijklmnopqrstuvwxyz",
        ] {
            assert_eq!(find(text).map(|r| r.id), None, "{text}");
        }
    }
}
