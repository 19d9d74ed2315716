//! A vocabulary searched by prefix: every token that a text starts with at
//! a position, shortest first, in steps bounded by the text itself.
//!
//! Unigram and WordPiece look for the tokens that start at each position
//! of a piece. Looking each candidate length up in a hash table hashes
//! every substring up to the longest token, which a file with one very long
//! token turns into minutes; the reference walks a prefix trie instead.
//! This is that walk over the sorted vocabulary itself (no trie to build,
//! no memory beyond the tokens): the tokens that share the first `d` bytes
//! with the text are one run of the sorted list, and each further byte
//! narrows the run with two binary searches. The walk ends as soon as no
//! token continues the text, so its steps never exceed the length of the
//! longest token the text really starts with.

/// Tokens sorted by their bytes, each once, laid end to end in that order
/// (the tokens a walk compares are next to each other in memory).
pub(super) struct Prefixes {
    /// Every token, in sorted order, one after another.
    bytes: Box<[u8]>,
    /// Where each token ends in `bytes` (it starts where the one before
    /// ends).
    ends: Box<[u32]>,
    /// Where the tokens that start with each byte begin; they end where
    /// those of the next byte begin (the first step of every walk).
    starts: Box<[u32; 257]>,
}

impl Prefixes {
    /// The index of `tokens` (duplicates are kept once).
    pub(super) fn new(tokens: impl IntoIterator<Item = Box<str>>) -> Prefixes {
        let mut tokens: Vec<Box<str>> = tokens.into_iter().collect();
        tokens.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        tokens.dedup();
        let mut starts = Box::new([0u32; 257]);
        let first = |token: &str| token.as_bytes().first().map_or(0, |&b| usize::from(b) + 1);
        for (byte, start) in starts.iter_mut().enumerate() {
            *start = tokens.partition_point(|token| first(token) <= byte) as u32;
        }
        let mut bytes = Vec::with_capacity(tokens.iter().map(|t| t.len()).sum());
        let mut ends = Vec::with_capacity(tokens.len());
        for token in &tokens {
            bytes.extend_from_slice(token.as_bytes());
            ends.push(bytes.len() as u32);
        }
        Prefixes {
            bytes: bytes.into_boxed_slice(),
            ends: ends.into_boxed_slice(),
            starts,
        }
    }

    /// The token at `position` of the sorted order.
    fn token(&self, position: usize) -> &[u8] {
        let start = match position {
            0 => 0,
            _ => self.ends[position - 1] as usize,
        };
        &self.bytes[start..self.ends[position] as usize]
    }

    /// The tokens in their sorted order: [`Prefixes::find`] and
    /// [`Prefixes::each`] give positions in it.
    pub(super) fn tokens(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len())
            .map(|position| std::str::from_utf8(self.token(position)).expect("tokens are text"))
    }

    /// The position of `token`, if it is one.
    pub(super) fn find(&self, token: &str) -> Option<usize> {
        let (mut low, mut high) = (0, self.ends.len());
        while low < high {
            let middle = (low + high) / 2;
            match self.token(middle).cmp(token.as_bytes()) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle),
            }
        }
        None
    }

    /// The first position in `low..high` whose token's byte at `depth`
    /// (none sorts lowest) is not `below` it: with `below` = `byte`, the
    /// first at `byte` or above; with `byte + 1`, the first above it.
    fn first_not_below(&self, mut low: usize, mut high: usize, depth: usize, below: u16) -> usize {
        while low < high {
            let middle = (low + high) / 2;
            let key = self
                .token(middle)
                .get(depth)
                .map_or(0, |&b| u16::from(b) + 1);
            if key < below {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low
    }

    /// Calls `found(end, position)` for every token that is `lead`
    /// followed by `text[start..end]` with `end > start`, shortest first.
    pub(super) fn each(
        &self,
        lead: &str,
        text: &str,
        start: usize,
        mut found: impl FnMut(usize, usize),
    ) {
        let (mut low, mut high) = (0, self.ends.len());
        let bytes = lead.bytes().chain(text.as_bytes()[start..].iter().copied());
        for (depth, byte) in bytes.enumerate() {
            // Within low..high every token has the same first `depth`
            // bytes; one of exactly that length sorts first.
            if depth == 0 {
                let at = usize::from(byte);
                (low, high) = (self.starts[at] as usize, self.starts[at + 1] as usize);
            } else {
                let key = u16::from(byte) + 1;
                let from = self.first_not_below(low, high, depth, key);
                high = self.first_not_below(from, high, depth, key + 1);
                low = from;
            }
            if low == high {
                return;
            }
            let length = depth + 1;
            if length > lead.len() && self.token(low).len() == length {
                found(start + length - lead.len(), low);
                low += 1;
            }
            if high - low == 1 {
                // One token is left: it is found if the text goes on with
                // the rest of it, in one comparison.
                let token = self.token(low);
                let at = start + length.saturating_sub(lead.len());
                let lead_rest = lead.as_bytes().get(length..).unwrap_or_default();
                let rest = &token[length..];
                let text_rest = &text.as_bytes()[at..];
                if rest.len() >= lead_rest.len()
                    && rest[..lead_rest.len()] == *lead_rest
                    && text_rest.starts_with(&rest[lead_rest.len()..])
                    && token.len() > lead.len()
                {
                    found(start + token.len() - lead.len(), low);
                }
                return;
            }
            if low == high {
                return;
            }
        }
    }
}

impl std::fmt::Debug for Prefixes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Prefixes({} tokens)", self.ends.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compares as the index sorts (bytes, not characters).
    fn order(a: &str, b: &str) -> std::cmp::Ordering {
        a.as_bytes().cmp(b.as_bytes())
    }

    fn index(tokens: &[&str]) -> Prefixes {
        Prefixes::new(tokens.iter().map(|t| Box::from(*t)))
    }

    fn found(prefixes: &Prefixes, lead: &str, text: &str, start: usize) -> Vec<&'static str> {
        let mut ends = Vec::new();
        prefixes.each(lead, text, start, |end, position| {
            let token = prefixes.tokens().nth(position).unwrap().to_string();
            assert_eq!(token, format!("{lead}{}", &text[start..end]));
            ends.push(Box::leak(token.into_boxed_str()) as &str);
        });
        ends
    }

    #[test]
    fn every_token_the_text_starts_with_is_found_shortest_first() {
        let p = index(&[
            "a", "ab", "abc", "abd", "b", "bc", "é", "éa", "##b", "##bc", "ab",
        ]);
        assert_eq!(p.tokens().count(), 10);
        assert_eq!(found(&p, "", "abcd", 0), ["a", "ab", "abc"]);
        assert_eq!(found(&p, "", "abcd", 1), ["b", "bc"]);
        assert_eq!(found(&p, "", "abcd", 3), Vec::<&str>::new());
        assert_eq!(found(&p, "", "xéa", 1), ["é", "éa"]);
        assert_eq!(found(&p, "##", "abcd", 1), ["##b", "##bc"]);
        // One token left, inside the lead or after it.
        let p = index(&["##abc"]);
        assert_eq!(found(&p, "##", "abcd", 0), ["##abc"]);
        assert_eq!(found(&p, "##", "abd", 0), Vec::<&str>::new());
        assert_eq!(found(&p, "#", "abcd", 0), Vec::<&str>::new());
        let p = index(&["ab", "abcdef"]);
        assert_eq!(found(&p, "", "abcdefg", 0), ["ab", "abcdef"]);
        assert_eq!(found(&p, "", "abcde", 0), ["ab"]);
        // The lead alone is no match.
        let p = index(&["##", "##a"]);
        assert_eq!(found(&p, "##", "ab", 0), ["##a"]);
        assert_eq!(p.find("##"), Some(0));
        assert_eq!(p.find("#"), None);
    }

    #[test]
    fn the_walk_is_the_same_as_trying_every_length() {
        let tokens = [
            "a", "aa", "aaa", "ab", "b", "ba", "bab", "c", "abc", "cab", "caba", "ç", "ça",
        ];
        let p = index(&tokens);
        let text = "aababcabaçabcça";
        for start in (0..text.len()).filter(|&s| text.is_char_boundary(s)) {
            let mut expected: Vec<&str> = (start + 1..=text.len())
                .filter(|&end| text.is_char_boundary(end))
                .map(|end| &text[start..end])
                .filter(|part| tokens.contains(part))
                .collect();
            expected.sort_by_key(|t| t.len());
            assert_eq!(found(&p, "", text, start), expected, "at {start}");
        }
        assert!(
            p.tokens()
                .zip(p.tokens().skip(1))
                .all(|(a, b)| order(a, b).is_lt())
        );
    }

    #[test]
    fn a_very_long_token_costs_only_the_bytes_the_text_shares_with_it() {
        let long = "a".repeat(20_000);
        let p = index(&["a", long.as_str()]);
        let mut steps = 0;
        p.each("", &"b".repeat(100_000), 0, |_, _| steps += 1);
        assert_eq!(steps, 0);
        let text = format!("{}b", "a".repeat(10));
        assert_eq!(found(&p, "", &text, 0), ["a"]);
    }
}
