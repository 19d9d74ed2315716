//! Focused excerpts: the lines of a text around what a query looks for,
//! with every gap marked and every cut said, so that an excerpt is never
//! mistaken for the whole.

use std::fmt::Write as _;

/// The default number of lines kept on each side of a matching line.
pub const DEFAULT_CONTEXT: usize = 8;
/// The default cap on an excerpt, in characters (Unicode scalar values).
pub const DEFAULT_MAX_CHARS: usize = 12_000;

/// The line that stands for lines left out.
pub const GAP: &str = "[...]";

/// A text split into lines, with the windows of lines a query selects.
#[derive(Debug, Clone)]
pub struct Focus<'a> {
    lines: Vec<&'a str>,
    /// 0-based inclusive line ranges, in order, not touching each other.
    windows: Vec<(usize, usize)>,
    chars: usize,
    query: Option<String>,
}

/// One rendering of a [`Focus`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// The excerpt text: kept lines, `[...]` for each gap, and a final note
    /// line when anything was cut or nothing matched.
    pub text: String,
    /// The 1-based inclusive line ranges shown, e.g. `12-40,88-101`.
    pub lines: String,
    /// Whether any line was shown.
    pub shows_lines: bool,
}

impl<'a> Focus<'a> {
    /// Splits `text` into lines and keeps every line within `context` lines
    /// of a line that contains a query term (case-insensitively). Terms are
    /// the query split on whitespace and commas, without terms shorter than
    /// two characters. Without a query (or without usable terms) the whole
    /// text is one window.
    pub fn new(text: &'a str, query: Option<&str>, context: usize) -> Focus<'a> {
        let lines: Vec<&str> = text.split('\n').collect();
        let terms: Vec<String> = query
            .map(|q| {
                q.split(|c: char| c.is_whitespace() || c == ',')
                    .filter(|term| term.chars().count() >= 2)
                    .map(str::to_lowercase)
                    .collect()
            })
            .unwrap_or_default();
        let windows = if terms.is_empty() {
            vec![(0, lines.len() - 1)]
        } else {
            let mut windows: Vec<(usize, usize)> = Vec::new();
            for (index, line) in lines.iter().enumerate() {
                let line = line.to_lowercase();
                if !terms.iter().any(|term| line.contains(term.as_str())) {
                    continue;
                }
                let start = index.saturating_sub(context);
                let end = (index + context).min(lines.len() - 1);
                match windows.last_mut() {
                    Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
                    _ => windows.push((start, end)),
                }
            }
            windows
        };
        Focus {
            lines,
            windows,
            chars: text.chars().count(),
            query: query.filter(|_| !terms.is_empty()).map(str::to_owned),
        }
    }

    /// How many windows the query selected.
    pub fn windows(&self) -> usize {
        self.windows.len()
    }

    /// The original's length in characters.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Renders the first `windows` windows, capped at `max_chars`
    /// characters at a line boundary. A final note line says how much is
    /// shown when windows were dropped or the cap cut, and says so when
    /// nothing matched.
    pub fn excerpt(&self, windows: usize, max_chars: usize) -> Excerpt {
        if self.windows.is_empty() {
            return Excerpt {
                text: format!(
                    "[no line matches the query in {} characters; try other terms]",
                    self.chars
                ),
                lines: String::new(),
                shows_lines: false,
            };
        }
        let windows = &self.windows[..windows.min(self.windows.len())];
        let mut text = String::new();
        let mut chars = 0;
        let mut shown: Vec<(usize, usize)> = Vec::new();
        let mut cut = windows.len() < self.windows.len();
        let mut next_line = 0;
        let mut ends_in_gap = false;
        'windows: for &(start, end) in windows {
            if start > next_line {
                if !push_line(&mut text, &mut chars, GAP, max_chars) {
                    cut = true;
                    break;
                }
                ends_in_gap = true;
            }
            for index in start..=end {
                if !push_line(&mut text, &mut chars, self.lines[index], max_chars) {
                    cut = true;
                    break 'windows;
                }
                ends_in_gap = false;
                match shown.last_mut() {
                    Some(last) if last.1 + 1 == index => last.1 = index,
                    _ => shown.push((index, index)),
                }
                next_line = index + 1;
            }
        }
        if next_line < self.lines.len() && !shown.is_empty() && !ends_in_gap {
            // Lines after the last one shown; the note below says why when
            // the cut was ours rather than the query's.
            if !push_line(&mut text, &mut chars, GAP, max_chars) {
                cut = true;
            }
        }
        if cut {
            let shown_chars: usize = shown
                .iter()
                .flat_map(|&(start, end)| &self.lines[start..=end])
                .map(|line| line.chars().count() + 1)
                .sum();
            let how = if self.query.is_some() {
                "narrow the query or raise --max-chars to see more"
            } else {
                "raise --max-chars to see more"
            };
            let _ = write!(
                text,
                "[excerpt cut: showing {} of {} characters; {how}]",
                shown_chars.min(self.chars),
                self.chars
            );
        } else if text.ends_with('\n') {
            text.pop();
        }
        Excerpt {
            text,
            lines: shown
                .iter()
                .map(|&(start, end)| format!("{}-{}", start + 1, end + 1))
                .collect::<Vec<_>>()
                .join(","),
            shows_lines: !shown.is_empty(),
        }
    }
}

/// Appends `line` and a newline if the text stays within `max_chars`.
fn push_line(text: &mut String, chars: &mut usize, line: &str, max_chars: usize) -> bool {
    let length = line.chars().count() + 1;
    if *chars + length > max_chars {
        return false;
    }
    text.push_str(line);
    text.push('\n');
    *chars += length;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn keeps_the_context_around_each_match_and_marks_the_gaps() {
        let mut text = numbered(30);
        text = text.replace("line 10", "line 10 has the Needle");
        let focus = Focus::new(&text, Some("needle"), 2);
        let excerpt = focus.excerpt(usize::MAX, 10_000);
        assert_eq!(
            excerpt.text,
            "[...]\nline 8\nline 9\nline 10 has the Needle\nline 11\nline 12\n[...]"
        );
        assert_eq!(excerpt.lines, "8-12");
    }

    #[test]
    fn merges_overlapping_windows() {
        let text = numbered(30)
            .replace("line 5", "alpha")
            .replace("line 9", "beta")
            .replace("line 25", "alpha");
        let focus = Focus::new(&text, Some("alpha, beta"), 2);
        assert_eq!(focus.windows(), 2);
        let excerpt = focus.excerpt(usize::MAX, 10_000);
        assert_eq!(excerpt.lines, "3-11,23-27");
        assert_eq!(excerpt.text.matches(GAP).count(), 3);
    }

    #[test]
    fn drops_short_terms_and_matches_case_insensitively() {
        let text = "a b c\nÉTÉ chaud\nx";
        let focus = Focus::new(text, Some("a, été"), 0);
        assert_eq!(
            focus.excerpt(usize::MAX, 100).text,
            "[...]\nÉTÉ chaud\n[...]"
        );
    }

    #[test]
    fn without_a_query_only_the_cap_applies() {
        let text = numbered(5);
        let focus = Focus::new(&text, None, 8);
        assert_eq!(focus.excerpt(usize::MAX, 10_000).text, text);
        let excerpt = focus.excerpt(usize::MAX, 14);
        assert_eq!(
            excerpt.text,
            "line 1\nline 2\n[excerpt cut: showing 14 of 34 characters; raise --max-chars to see more]"
        );
        assert_eq!(excerpt.lines, "1-2");
    }

    #[test]
    fn caps_at_a_line_boundary_counting_characters_not_bytes() {
        let text = "日本語\n日本語\n日本語";
        let focus = Focus::new(text, None, 0);
        let excerpt = focus.excerpt(usize::MAX, 9);
        assert!(
            excerpt
                .text
                .starts_with("日本語\n日本語\n[excerpt cut: showing 8 of 11 characters")
        );
        // Never inside a character, never inside a line.
        let excerpt = focus.excerpt(usize::MAX, 3);
        assert!(excerpt.text.starts_with("[excerpt cut: showing 0 of 11"));
        assert!(!excerpt.shows_lines);
    }

    #[test]
    fn never_marks_one_gap_twice() {
        let text = numbered(40)
            .replace("line 5", "hit")
            .replace("line 30", "hit long enough");
        let focus = Focus::new(&text, Some("hit"), 0);
        // The cap leaves room for the gap before the second window, not for it.
        let excerpt = focus.excerpt(usize::MAX, 16);
        assert_eq!(
            excerpt.text,
            "[...]\nhit\n[...]\n[excerpt cut: showing 4 of 315 characters; narrow the query or raise --max-chars to see more]"
        );
    }

    #[test]
    fn says_so_when_nothing_matches() {
        let focus = Focus::new("one\ntwo", Some("needle"), 3);
        let excerpt = focus.excerpt(usize::MAX, 100);
        assert_eq!(
            excerpt.text,
            "[no line matches the query in 7 characters; try other terms]"
        );
        assert!(!excerpt.shows_lines);
    }

    #[test]
    fn dropping_windows_adds_the_cut_note() {
        let text = numbered(40)
            .replace("line 5", "hit")
            .replace("line 30", "hit");
        let focus = Focus::new(&text, Some("hit"), 1);
        let excerpt = focus.excerpt(1, 10_000);
        assert_eq!(excerpt.lines, "4-6");
        assert!(
            excerpt
                .text
                .ends_with("narrow the query or raise --max-chars to see more]")
        );
    }
}
