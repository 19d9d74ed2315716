//! `--priority GLOB=N`: document priorities from path globs, the last
//! matching rule winning.

use std::path::Path;

use ignore::overrides::{Override, OverrideBuilder};

use packer::error::{CommandLine, Error, Names, Setting};

/// The range of a document's `priority` (SPEC §1).
pub const PRIORITY_RANGE: std::ops::RangeInclusive<i64> = -1000..=1000;

/// One `GLOB=N` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorityRule {
    /// A glob in gitignore syntax (as `--glob`), matched relative to the
    /// collected directory; it may not start with `!`.
    pub glob: String,
    /// The priority of matching files, in -1000..=1000.
    pub priority: i64,
}

/// Why a text is not a `GLOB=N` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleProblem {
    /// Not `GLOB=N` with `N` a whole number in [`PRIORITY_RANGE`].
    NotARule,
    /// The glob starts with `!`.
    NegatedGlob,
}

impl RuleProblem {
    /// The problem as a front end's user reads it, the rule's glob named
    /// by `names`.
    pub fn message(self, names: &dyn Names) -> String {
        match self {
            RuleProblem::NotARule => {
                "expected GLOB=N with N a whole number from -1000 to 1000".into()
            }
            RuleProblem::NegatedGlob => format!(
                "{} cannot start with `!`; give the files a lower priority instead",
                names.name(Setting::PriorityGlob)
            ),
        }
    }
}

/// The command line's message.
impl std::fmt::Display for RuleProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(&CommandLine))
    }
}

impl std::str::FromStr for PriorityRule {
    type Err = RuleProblem;

    /// Parses `GLOB=N` (split at the last `=`, so the glob may contain `=`).
    fn from_str(text: &str) -> Result<PriorityRule, RuleProblem> {
        let (glob, number) = text.rsplit_once('=').ok_or(RuleProblem::NotARule)?;
        let priority: i64 = number.trim().parse().map_err(|_| RuleProblem::NotARule)?;
        if glob.is_empty() || !PRIORITY_RANGE.contains(&priority) {
            return Err(RuleProblem::NotARule);
        }
        if glob.starts_with('!') {
            return Err(RuleProblem::NegatedGlob);
        }
        Ok(PriorityRule {
            glob: glob.to_owned(),
            priority,
        })
    }
}

/// Each of `rules` parsed, or the first one's problem.
pub fn priority_rules<S: AsRef<str>>(rules: &[S]) -> Result<Vec<PriorityRule>, RuleProblem> {
    rules.iter().map(|rule| rule.as_ref().parse()).collect()
}

/// The compiled rules.
pub(crate) struct Matcher {
    rules: Vec<(Override, i64)>,
}

impl Matcher {
    /// Compiles `rules` relative to `dir`; a glob that does not parse is
    /// `invalid-glob`.
    pub(crate) fn new(dir: &Path, rules: &[PriorityRule]) -> Result<Matcher, Error> {
        let rules = rules
            .iter()
            .map(|rule| {
                let mut builder = OverrideBuilder::new(dir);
                builder.add(&rule.glob).map_err(|_| Error::InvalidGlob)?;
                let matcher = builder.build().map_err(|_| Error::InvalidGlob)?;
                Ok((matcher, rule.priority))
            })
            .collect::<Result<_, Error>>()?;
        Ok(Matcher { rules })
    }

    /// The priority of the file at `path` (under `dir`): the last matching
    /// rule's, or 0. A rule matching one of the file's directories matches
    /// the file (`--priority 'docs/=5'`).
    pub(crate) fn priority(&self, path: &Path) -> i64 {
        self.rules
            .iter()
            .rev()
            .find(|(matcher, _)| {
                matcher.matched(path, false).is_whitelist()
                    || path
                        .ancestors()
                        .skip(1)
                        .any(|dir| matcher.matched(dir, true).is_whitelist())
            })
            .map_or(0, |(_, priority)| *priority)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_at_the_last_equals_sign() {
        let rule: PriorityRule = "src/**/*.rs=10".parse().unwrap();
        assert_eq!(rule.glob, "src/**/*.rs");
        assert_eq!(rule.priority, 10);
        let rule: PriorityRule = "a=b.txt=-5".parse().unwrap();
        assert_eq!((rule.glob.as_str(), rule.priority), ("a=b.txt", -5));
        for bad in ["", "x", "=3", "*.rs=", "*.rs=1.5", "*.rs=1001", "!*.rs=1"] {
            assert!(bad.parse::<PriorityRule>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_last_matching_rule_wins() {
        let dir = Path::new("/r");
        let rules: Vec<PriorityRule> = ["*.rs=1", "tests/=-3", "src/**=5", "src/gen.rs=-1"]
            .iter()
            .map(|r| r.parse().unwrap())
            .collect();
        let matcher = Matcher::new(dir, &rules).unwrap();
        let priority = |p: &str| matcher.priority(&dir.join(p));
        assert_eq!(priority("README.md"), 0);
        assert_eq!(priority("build.rs"), 1);
        assert_eq!(priority("tests/a.rs"), -3);
        assert_eq!(priority("src/lib.rs"), 5);
        assert_eq!(priority("src/deep/x.txt"), 5);
        assert_eq!(priority("src/gen.rs"), -1);
    }
}
