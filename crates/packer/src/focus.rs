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
    /// The lines, without their `\n` (a `\r` before it stays on the line).
    lines: Vec<&'a str>,
    /// 0-based inclusive line ranges, in order, not touching each other.
    windows: Vec<(usize, usize)>,
    chars: usize,
    query: Option<String>,
    /// Whether the text ends with a line break (which ends the last line
    /// rather than starting an empty one).
    final_newline: bool,
    /// Whether lines end with `\r\n`: gap and note lines then do too.
    crlf: bool,
}

/// Who reads an excerpt's notes: a person at the command line (who can be
/// told about flags) or a model inside a payload (who cannot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `packer focus`: notes may name flags.
    Person,
    /// A payload: notes say what happened, never which flag to change.
    Model,
}

/// One rendering of a [`Focus`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// The excerpt text: kept lines, `[...]` for each gap, and a final note
    /// line when anything was cut or nothing matched. It ends with a line
    /// break only when it ends with the original's last line and the
    /// original did.
    pub text: String,
    /// The 1-based inclusive line ranges shown, e.g. `12-40,88-101`.
    pub lines: String,
    /// Whether any line was shown.
    pub shows_lines: bool,
    /// Whether the text ends exactly as the original does (with its last
    /// line, and its final line break if it had one) rather than with a gap
    /// or a note line.
    pub ends_as_original: bool,
}

/// The terms of a query: split on whitespace and commas, lowercased,
/// without terms shorter than two characters. A query without terms
/// selects nothing and is refused where a query is required.
pub fn terms(query: &str) -> Vec<String> {
    query
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|term| term.chars().count() >= 2)
        .map(str::to_lowercase)
        .collect()
}

impl<'a> Focus<'a> {
    /// Splits `text` into lines and keeps every line within `context` lines
    /// of a line that contains a query term (case-insensitively). Terms are
    /// the query split on whitespace and commas, without terms shorter than
    /// two characters (see [`terms`]). Without a query (or without usable
    /// terms) the whole text is one window.
    pub fn new(text: &'a str, query: Option<&str>, context: usize) -> Focus<'a> {
        let final_newline = text.ends_with('\n');
        let body = if final_newline {
            &text[..text.len() - 1]
        } else {
            text
        };
        let lines: Vec<&str> = body.split('\n').collect();
        let crlf = text.contains("\r\n");
        let terms: Vec<String> = query.map(terms).unwrap_or_default();
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
            final_newline,
            crlf,
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

    /// Renders the first `windows` windows for a person, capped at
    /// `max_chars` characters at a line boundary (see [`Focus::excerpt_for`]).
    pub fn excerpt(&self, windows: usize, max_chars: usize) -> Excerpt {
        self.excerpt_for(Reader::Person, windows, max_chars)
    }

    /// Renders the first `windows` windows, capped at `max_chars`
    /// characters at a line boundary. A final note line says how much is
    /// shown when windows were dropped or the cap cut, and says so when
    /// nothing matched; for a [`Reader::Model`] the note says why (the token
    /// budget, or the excerpt's length limit) without naming any flag.
    pub fn excerpt_for(&self, reader: Reader, windows: usize, max_chars: usize) -> Excerpt {
        let eol = if self.crlf { "\r" } else { "" };
        if self.windows.is_empty() {
            return Excerpt {
                text: format!(
                    "[no line matches the query in {} characters; try other terms]",
                    self.chars
                ),
                lines: String::new(),
                shows_lines: false,
                ends_as_original: false,
            };
        }
        let dropped = windows < self.windows.len();
        let windows = &self.windows[..windows.min(self.windows.len())];
        let gap = format!("{GAP}{eol}");
        let mut text = String::new();
        let mut chars = 0;
        let mut shown: Vec<(usize, usize)> = Vec::new();
        let mut capped = false;
        let mut next_line = 0;
        let mut ends_in_gap = false;
        'windows: for &(start, end) in windows {
            if start > next_line {
                if !push_line(&mut text, &mut chars, &gap, max_chars) {
                    capped = true;
                    break;
                }
                ends_in_gap = true;
            }
            for index in start..=end {
                if !push_line(&mut text, &mut chars, self.lines[index], max_chars) {
                    capped = true;
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
            if !push_line(&mut text, &mut chars, &gap, max_chars) {
                capped = true;
            }
        }
        let ends_as_original =
            !(capped || dropped) && next_line == self.lines.len() && !ends_in_gap;
        if capped || dropped {
            let shown_chars: usize = shown
                .iter()
                .flat_map(|&(start, end)| &self.lines[start..=end])
                .map(|line| line.chars().count() + 1)
                .sum();
            let (shown_chars, of) = (shown_chars.min(self.chars), self.chars);
            let _ = match reader {
                Reader::Person => {
                    let how = if self.query.is_some() {
                        "narrow the query or raise --max-chars to see more"
                    } else {
                        "raise --max-chars to see more"
                    };
                    write!(
                        text,
                        "[excerpt cut: showing {shown_chars} of {of} characters; {how}]"
                    )
                }
                Reader::Model if dropped => write!(
                    text,
                    "[excerpt cut to fit the token budget: showing {shown_chars} of {of} characters]"
                ),
                Reader::Model => write!(
                    text,
                    "[excerpt cut to its length limit: showing {shown_chars} of {of} characters]"
                ),
            };
        } else if !(self.final_newline && ends_as_original) {
            // The line break after the last line shown is the original's
            // only when that line is the original's last.
            text.pop();
            if self.crlf && text.ends_with(&gap) {
                text.pop();
            }
        }
        Excerpt {
            text,
            lines: shown
                .iter()
                .map(|&(start, end)| format!("{}-{}", start + 1, end + 1))
                .collect::<Vec<_>>()
                .join(","),
            shows_lines: !shown.is_empty(),
            ends_as_original,
        }
    }

    /// The line break the text uses: `\r\n` or `\n`.
    pub fn line_break(&self) -> &'static str {
        if self.crlf { "\r\n" } else { "\n" }
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

    #[test]
    fn a_final_newline_ends_the_last_line_rather_than_adding_one() {
        let text = format!("{}\n", numbered(200).replace("line 200", "the needle"));
        let focus = Focus::new(&text, Some("needle"), 2);
        let excerpt = focus.excerpt(usize::MAX, 10_000);
        assert_eq!(excerpt.lines, "198-200");
        assert_eq!(excerpt.text, "[...]\nline 198\nline 199\nthe needle\n");
        assert!(excerpt.ends_as_original);
        let text = "aa\nbb\ncc\ndd\nee\nff\n";
        let excerpt = Focus::new(text, Some("ff"), 0).excerpt(usize::MAX, 100);
        assert_eq!(excerpt.text, "[...]\nff\n");
    }

    #[test]
    fn without_a_query_the_text_comes_back_exactly() {
        for text in ["a\nb", "a\nb\n", "a\r\nb\r\n", "\n", "x"] {
            let excerpt = Focus::new(text, None, 8).excerpt(usize::MAX, 10_000);
            assert_eq!(excerpt.text, text);
            assert!(excerpt.ends_as_original);
        }
    }

    #[test]
    fn crlf_text_gets_crlf_gap_lines() {
        let text = "a\r\nb\r\nhit\r\nc\r\nd\r\n";
        let focus = Focus::new(text, Some("hit"), 0);
        let excerpt = focus.excerpt(usize::MAX, 100);
        assert_eq!(excerpt.text, "[...]\r\nhit\r\n[...]");
        assert!(!excerpt.ends_as_original);
        assert_eq!(focus.line_break(), "\r\n");
    }

    #[test]
    fn notes_for_a_model_say_why_and_name_no_flag() {
        let text = numbered(40)
            .replace("line 5", "hit")
            .replace("line 30", "hit");
        let focus = Focus::new(&text, Some("hit"), 1);
        let budget = focus.excerpt_for(Reader::Model, 1, 10_000);
        assert!(
            budget
                .text
                .ends_with("[excerpt cut to fit the token budget: showing 18 of 303 characters]"),
            "{}",
            budget.text
        );
        let capped = focus.excerpt_for(Reader::Model, 2, 20);
        assert!(
            capped
                .text
                .ends_with("[excerpt cut to its length limit: showing 11 of 303 characters]"),
            "{}",
            capped.text
        );
        for excerpt in [budget, capped] {
            assert!(!excerpt.text.contains("--"));
        }
    }
}
