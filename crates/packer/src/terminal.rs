//! Text made safe to print on a terminal: what a capture, a tree or a
//! template wrote may name itself in a message, never move the cursor,
//! reorder a line or start one of its own.

use std::fmt::Write as _;

/// `text` with every character that could repaint or reorder a terminal
/// (controls, bidirectional overrides and isolates, zero-width and other
/// invisible format characters) written as `\u{XXXX}`, and backslashes
/// doubled so that the escaped form is unambiguous.
pub fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let after_emoji = i > 0 && is_emoji(chars[i - 1]);
        let before_emoji = chars.get(i + 1).is_some_and(|&next| is_emoji(next));
        // An emoji ZWJ sequence (👨‍👩‍👧) and an emoji presentation selector
        // (❤️) draw one picture; everywhere else they are invisible.
        let joins_emoji =
            (c == '\u{200D}' && after_emoji && before_emoji) || (c == '\u{FE0F}' && after_emoji);
        if c == '\\' {
            out.push_str("\\\\");
        } else if is_unsafe_in_terminal(c) && !joins_emoji {
            let _ = write!(out, "\\u{{{:04X}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{2300}'..='\u{23FF}')
}

fn is_unsafe_in_terminal(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061C}'                  // arabic letter mark
            | '\u{115F}' | '\u{1160}'   // hangul fillers
            | '\u{180E}'                // mongolian vowel separator
            | '\u{200B}'..='\u{200F}'   // zero-width space/joiners, LRM, RLM
            | '\u{2028}' | '\u{2029}'   // line and paragraph separators
            | '\u{202A}'..='\u{202E}'   // bidi embeddings and overrides
            | '\u{2060}'..='\u{206F}'   // word joiner, invisible operators, isolates
            | '\u{3164}'                // hangul filler
            | '\u{FE00}'..='\u{FE0F}'   // variation selectors
            | '\u{FEFF}'                // zero-width no-break space
            | '\u{FFA0}'                // halfwidth hangul filler
            | '\u{FFF9}'..='\u{FFFB}'   // interlinear annotations
            | '\u{E0000}'..='\u{E007F}' // tags
            | '\u{E0100}'..='\u{E01EF}' // variation selectors supplement
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_safe_escapes_controls_bidi_and_invisible_characters() {
        assert_eq!(terminal_safe("plain-id_1 日本 🙂"), "plain-id_1 日本 🙂");
        assert_eq!(terminal_safe("a\u{1b}[2Jb"), "a\\u{001B}[2Jb");
        assert_eq!(terminal_safe("evil\u{202E}txt.exe"), "evil\\u{202E}txt.exe");
        assert_eq!(
            terminal_safe("zero\u{200B}width\u{2066}"),
            "zero\\u{200B}width\\u{2066}"
        );
        assert_eq!(terminal_safe("back\\slash\r"), "back\\\\slash\\u{000D}");
        assert_eq!(
            terminal_safe("\u{85}\u{7f}\u{FEFF}"),
            "\\u{0085}\\u{007F}\\u{FEFF}"
        );
    }
}
