//! String literals in a chat template, read as Jinja2 reads them.
//!
//! Jinja2 decodes a string literal with Python's `unicode-escape` codec
//! (after turning `\r\n` and `\r` into `\n`): `\a`, `\v`, `\UXXXXXXXX`,
//! octal escapes up to `\777`, a backslash before a line break (both
//! dropped) and `\/` (kept as written) are Python's. minijinja reads some
//! of those otherwise (`\U000e0001` stays backslash text). So before
//! compiling, every literal with a backslash or a carriage return is
//! decoded here as Python decodes it and written again in a form that
//! minijinja reads as exactly that text. What has no such form is refused:
//! `\N{...}` (Unicode names), an escape that makes a surrogate, and an
//! escape Python rejects (Jinja2 then fails to compile the template).
//!
//! The same pass writes every line break as `\n`, as Jinja2 reads them,
//! keeps the line break after a `{% raw %}` tag, which
//! Jinja2's `trim_blocks` keeps and minijinja's drops, and reads the one
//! tag `transformers` adds to Jinja2: a
//! `{% generation %}` … `{% endgeneration %}` block (its
//! `AssistantTracker` extension, which renders the block's body as it is
//! and notes where it lands for assistant masks). Its tags become
//! `{% if true %}` and `{% endif %}` with the same whitespace controls, so
//! `trim_blocks` and `lstrip_blocks` treat them as Jinja2 treats any
//! block tag.

/// Why a literal is refused, for the message.
pub(super) type Refusal = &'static str;

/// `source` with each string literal inside its tags rewritten as
/// minijinja reads it the way Jinja2 reads the original, or why not.
pub(super) fn rewrite(source: &str) -> Result<String, Refusal> {
    // Jinja2 reads every line break of a template (`\r\n`, a lone `\r`)
    // as `\n`, in its text and in its string literals alike.
    let normalized;
    let source = if source.contains('\r') {
        normalized = source.replace("\r\n", "\n").replace('\r', "\n");
        normalized.as_str()
    } else {
        source
    };
    if !source.contains('\\') && !source.contains("generation") && !source.contains("raw") {
        return Ok(source.to_owned());
    }
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    let mut copied = 0;
    while at + 1 < bytes.len() {
        if bytes[at] != b'{' {
            at += 1;
            continue;
        }
        match bytes[at + 1] {
            b'#' => {
                // A comment: to its end, untouched.
                at = source[at + 2..]
                    .find("#}")
                    .map_or(bytes.len(), |end| at + 2 + end + 2);
            }
            b'%' if is_raw(&source[at + 2..]) => {
                // Jinja2's `trim_blocks` keeps the line break after
                // `{% raw %}` (not after `{% raw -%}`); minijinja's drops
                // it, so it is written twice.
                let open = at + 2 + source[at + 2..].find("%}").unwrap_or(0) + 2;
                if source.as_bytes()[open - 3] != b'-' && bytes.get(open) == Some(&b'\n') {
                    out.push_str(&source[copied..open]);
                    out.push('\n');
                    copied = open;
                }
                at = end_of_raw(source, at + 2);
            }
            b'%' if generation_tag(&source[at + 2..]).is_some() => {
                let (length, replaced) = generation_tag(&source[at + 2..]).expect("matched");
                out.push_str(&source[copied..at]);
                out.push_str(&replaced);
                at += 2 + length;
                copied = at;
            }
            b'{' | b'%' => {
                at += 2;
                let mut depth = 0usize;
                while at < bytes.len() {
                    match bytes[at] {
                        b'\'' | b'"' => {
                            let end = end_of_literal(bytes, at);
                            let literal = &source[at..end];
                            if literal.contains('\\') || literal.contains('\r') {
                                out.push_str(&source[copied..at]);
                                out.push_str(&requote(literal)?);
                                copied = end;
                            }
                            at = end;
                            continue;
                        }
                        b'(' | b'[' | b'{' => depth += 1,
                        b')' | b']' => depth = depth.saturating_sub(1),
                        b'}' if depth > 0 => depth -= 1,
                        b'}' | b'%' if bytes.get(at + 1) == Some(&b'}') => {
                            at += 2;
                            break;
                        }
                        _ => {}
                    }
                    at += 1;
                }
            }
            _ => at += 1,
        }
    }
    out.push_str(&source[copied..]);
    Ok(out)
}

/// Whether a block tag's body (after `{%`) is `raw`.
fn is_raw(after: &str) -> bool {
    let body = after.trim_start_matches(['-', '+']).trim_start();
    body.strip_prefix("raw").is_some_and(|rest| {
        rest.trim_start()
            .trim_start_matches(['-', '+'])
            .starts_with("%}")
    })
}

/// For a block tag's body (after `{%`) that is `generation` or
/// `endgeneration`: its length up to and with `%}`, and the `if true` or
/// `endif` tag with the same whitespace controls that stands for it.
fn generation_tag(after: &str) -> Option<(usize, String)> {
    let (open, body) = match after.as_bytes().first() {
        Some(b'-' | b'+') => after.split_at(1),
        _ => ("", after),
    };
    let body = body.trim_start();
    let (word, rest) = if let Some(rest) = body.strip_prefix("endgeneration") {
        ("endif", rest)
    } else {
        ("if true", body.strip_prefix("generation")?)
    };
    let rest = rest.trim_start();
    let (close, rest) = match rest.as_bytes().first() {
        Some(b'-' | b'+') => rest.split_at(1),
        _ => ("", rest),
    };
    let rest = rest.strip_prefix("%}")?;
    Some((
        after.len() - rest.len(),
        format!("{{%{open} {word} {close}%}}"),
    ))
}

/// Where the `{% endraw %}` after a raw block opened at `from` ends.
fn end_of_raw(source: &str, from: usize) -> usize {
    let mut at = from;
    while let Some(found) = source[at..].find("{%") {
        let tag = at + found + 2;
        let body = source[tag..].trim_start_matches(['-', '+']).trim_start();
        if let Some(rest) = body.strip_prefix("endraw") {
            let rest = rest.trim_start().trim_start_matches(['-', '+']);
            if rest.starts_with("%}") {
                return source.len() - rest.len() + 2;
            }
        }
        at = tag;
    }
    source.len()
}

/// The end of the literal that opens at `start` (after its closing quote,
/// or the end of the text).
fn end_of_literal(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b if b == quote => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// A quoted literal decoded as Jinja2 decodes it and quoted again for
/// minijinja: only `\\` and the quote escaped, every other character as
/// itself.
fn requote(literal: &str) -> Result<String, Refusal> {
    let quote = literal.chars().next().expect("a quote");
    let Some(body) = literal
        .get(1..literal.len() - 1)
        .filter(|_| literal.len() >= 2 && literal.ends_with(quote))
    else {
        // Unterminated: minijinja refuses it as Jinja2 does.
        return Ok(literal.to_owned());
    };
    let decoded = decode(&body.replace("\r\n", "\n").replace('\r', "\n"))?;
    let mut out = String::with_capacity(decoded.len() + 2);
    out.push(quote);
    for c in decoded.chars() {
        if c == '\\' || c == quote {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(quote);
    Ok(out)
}

/// Python's `unicode-escape` decoding of a literal's text.
fn decode(text: &str) -> Result<String, Refusal> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let hex = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, digits: usize| {
        let mut value = 0u32;
        for _ in 0..digits {
            let digit = chars
                .next()
                .and_then(|c| c.to_digit(16))
                .ok_or("an escape with too few hexadecimal digits, which Jinja2 rejects")?;
            value = value * 16 + digit;
        }
        char::from_u32(value).ok_or(
            "an escape that makes a surrogate or a code point past U+10FFFF, which packer cannot \
             render as Jinja2 does",
        )
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else {
            return Err("a literal that ends with a backslash, which Jinja2 rejects");
        };
        match escape {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(escape),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            'x' => out.push(hex(&mut chars, 2)?),
            'u' => out.push(hex(&mut chars, 4)?),
            'U' => out.push(hex(&mut chars, 8)?),
            'N' => return Err("a \\N{...} escape (a character by its Unicode name)"),
            '0'..='7' => {
                let mut value = escape.to_digit(8).expect("an octal digit");
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(digit) => {
                            value = value * 8 + digit;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).expect("at most U+01FF"));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_tags_become_plain_blocks_with_their_whitespace_controls() {
        let cases = [
            (
                "{% generation %}x{% endgeneration %}",
                "{% if true %}x{% endif %}",
            ),
            (
                "{%- generation -%}x{%+endgeneration+%}",
                "{%- if true -%}x{%+ endif +%}",
            ),
            // Not the tag: in a comment, a raw block, a string, another word.
            (
                "{# {% generation %} #}{% raw %}{% generation %}{% endraw %}",
                "{# {% generation %} #}{% raw %}{% generation %}{% endraw %}",
            ),
            ("{{ '{% generation %}' }}", "{{ '{% generation %}' }}"),
            ("{% generations %}", "{% generations %}"),
        ];
        for (source, rewritten) in cases {
            assert_eq!(rewrite(source).unwrap(), rewritten, "{source}");
        }
    }

    #[test]
    fn literals_are_decoded_as_python_decodes_them() {
        let cases = [
            ("{{ 'plain' }}", "{{ 'plain' }}"),
            ("{{ '\\U000e0001' }}", "{{ '\u{e0001}' }}"),
            (
                "{{ \"a\\/b\\a\\v\\q\" }}",
                "{{ \"a\\\\/b\u{7}\u{b}\\\\q\" }}",
            ),
            ("{{ '\\101\\777\\x41\\u00e9' }}", "{{ 'A\u{1ff}Aé' }}"),
            ("{{ 'it\\'s' ~ \"\\\"\" }}", "{{ 'it\\'s' ~ \"\\\"\" }}"),
            ("{{ 'a\\\nb' }}", "{{ 'ab' }}"),
            ("{{ 'a\r\nb' }}", "{{ 'a\nb' }}"),
            // Outside tags, in comments and in raw blocks: untouched.
            ("'\\U000e0001' {# '\\a' #}", "'\\U000e0001' {# '\\a' #}"),
            (
                "{% raw %}{{ '\\a' }}{% endraw %}{{ '\\a' }}",
                "{% raw %}{{ '\\a' }}{% endraw %}{{ '\u{7}' }}",
            ),
            // A dict inside an expression does not end it.
            ("{{ {'a': {'b': '\\a'}} }}", "{{ {'a': {'b': '\u{7}'}} }}"),
        ];
        for (source, rewritten) in cases {
            assert_eq!(rewrite(source).unwrap(), rewritten, "{source:?}");
        }
        assert!(rewrite("{{ '\\N{BULLET}' }}").is_err());
        assert!(rewrite("{{ '\\ud83d' }}").is_err());
        assert!(rewrite("{{ '\\x4' }}").is_err());
    }
}
