//! The line model shared by the content, the labels and the rebuild: a
//! file's lines are split at `\n`, a final newline starts no new line, and
//! `\r` stays part of its line.

use std::ops::Range;

/// The elision marker's first character (U+22EE VERTICAL ELLIPSIS).
pub const MARKER: char = '⋮';

/// Byte ranges of the file's lines, each without its `\n`.
pub(crate) fn line_spans(source: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (at, byte) in source.bytes().enumerate() {
        if byte == b'\n' {
            spans.push(start..at);
            start = at + 1;
        }
    }
    if start < source.len() {
        spans.push(start..source.len());
    }
    spans
}

/// The number of lines under the line rule.
pub(crate) fn line_count(source: &str) -> usize {
    let newlines = source.bytes().filter(|&b| b == b'\n').count();
    newlines + usize::from(!source.is_empty() && !source.ends_with('\n'))
}

/// Kept lines as sorted, disjoint, non-adjacent half-open ranges.
#[cfg_attr(not(feature = "parser"), allow(dead_code))]
pub(crate) fn ranges(kept: &[bool]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (line, &keep) in kept.iter().enumerate() {
        if !keep {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.end == line => last.end = line + 1,
            _ => out.push(line..line + 1),
        }
    }
    out
}

/// The content from the source and the kept ranges alone; see
/// [`crate::Outline::rebuild`]. Ranges past the file's end are cut at it.
pub(crate) fn rebuild(source: &str, kept: &[Range<usize>]) -> String {
    let spans = line_spans(source);
    let lines = spans.len();
    let mut keep = vec![false; lines];
    for range in kept {
        let (start, end) = (range.start.min(lines), range.end.min(lines));
        if start < end {
            keep[start..end].fill(true);
        }
    }
    let mut out = String::new();
    let mut line = 0;
    while line < lines {
        if keep[line] {
            let span = &spans[line];
            let end = if span.end < source.len() {
                span.end + 1
            } else {
                span.end
            };
            out.push_str(&source[span.start..end]);
            line += 1;
            continue;
        }
        let run_start = line;
        while line < lines && !keep[line] {
            line += 1;
        }
        out.push(MARKER);
        out.push(' ');
        out.push_str(&(line - run_start).to_string());
        // A marker is followed by a kept line, or it is the last one and
        // ends as the file does.
        if line < lines || source.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// `1-12,40-41`: 1-based inclusive ranges, a single line as its number.
pub(crate) fn label(kept: &[Range<usize>]) -> String {
    let mut out = String::new();
    for range in kept {
        if range.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(',');
        }
        if range.end - range.start == 1 {
            out.push_str(&range.end.to_string());
        } else {
            out.push_str(&format!("{}-{}", range.start + 1, range.end));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // one kept range is the case
mod tests {
    use super::*;

    #[test]
    fn a_final_newline_starts_no_new_line_and_a_carriage_return_stays() {
        assert_eq!(line_spans("a\r\nb\n"), vec![0..2, 3..4]);
        assert_eq!(line_count("a\r\nb\n"), 2);
        assert_eq!(line_count("a\nb"), 2);
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("\n"), 1);
        assert_eq!(line_spans("\n\n"), vec![0..0, 1..1]);
    }

    #[test]
    fn kept_lines_become_non_adjacent_ranges() {
        assert_eq!(
            ranges(&[true, true, false, true, false, false, true]),
            vec![0..2, 3..4, 6..7]
        );
        assert_eq!(ranges(&[false, false]), Vec::<Range<usize>>::new());
    }

    #[test]
    fn each_run_of_elided_lines_becomes_one_marker() {
        let source = "a\nb\nc\nd\ne\n";
        assert_eq!(rebuild(source, &[1..2, 3..4]), "⋮ 1\nb\n⋮ 1\nd\n⋮ 1\n");
        assert_eq!(rebuild(source, &[0..5]), source);
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = [3..1, 9..20];
        assert_eq!(rebuild(source, &reversed), "⋮ 5\n");
    }

    #[test]
    fn a_final_marker_ends_as_the_file_does() {
        assert_eq!(rebuild("a\nb\nc", &[0..1]), "a\n⋮ 2");
        assert_eq!(rebuild("a\nb\nc\n", &[0..1]), "a\n⋮ 2\n");
        assert_eq!(rebuild("a\nb\nc", &[2..3]), "⋮ 2\nc");
    }

    #[test]
    fn labels_are_one_based_and_inclusive_with_a_single_line_as_its_number() {
        assert_eq!(label(&[0..12, 39..41]), "1-12,40-41");
        assert_eq!(label(&[6..7]), "7");
        assert_eq!(label(&[]), "");
    }
}
