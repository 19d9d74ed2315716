//! Byte-pair merging, exactly as the reference implementations merge.
//!
//! Both references repeatedly merge the adjacent pair with the lowest
//! priority, the leftmost one among equals, until no pair can merge:
//!
//! - Hugging Face's BPE model: a pair can merge when it is listed in the
//!   file's `merges`; its priority is its line in that list.
//! - tiktoken (Mistral's `tekken.json`): a pair can merge when the bytes of
//!   both together are a token; its priority is that token's rank. A piece
//!   that is itself a token is that one token, merges or not.
//!
//! [`count`] runs that loop with a binary heap over a linked list of
//! symbols (as `tokenizers`' `Word::merge_all` does), so a long piece costs
//! `O(n log n)`, never `O(n²)`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a symbol is and how two adjacent symbols merge.
pub(crate) trait Merges {
    /// A symbol: a token id, or a range of the piece's bytes.
    type Symbol: Copy + PartialEq;

    /// The symbol of one byte of the piece at `index`.
    fn byte(&self, piece: &[u8], index: usize) -> Self::Symbol;

    /// The priority and the merged symbol of `left` followed by `right`,
    /// if they merge.
    fn merge(
        &self,
        piece: &[u8],
        left: Self::Symbol,
        right: Self::Symbol,
    ) -> Option<(u32, Self::Symbol)>;
}

/// One symbol of the word being merged.
#[derive(Clone, Copy)]
struct Node<S> {
    symbol: S,
    prev: usize,
    next: usize,
    alive: bool,
}

const NONE: usize = usize::MAX;

/// The number of tokens `merges` makes of `piece` (which is not empty).
pub(crate) fn count<M: Merges>(merges: &M, piece: &[u8]) -> usize {
    let n = piece.len();
    if n <= 1 {
        return n;
    }
    count_symbols(merges, piece, (0..n).map(|i| merges.byte(piece, i)))
}

/// The number of tokens `merges` makes of a word whose first symbols are
/// `symbols` (BPE over characters: one symbol per character, or its bytes'
/// fallback tokens); `piece` is handed to [`Merges::merge`].
pub(crate) fn count_symbols<M: Merges>(
    merges: &M,
    piece: &[u8],
    symbols: impl IntoIterator<Item = M::Symbol>,
) -> usize {
    let mut nodes: Vec<Node<M::Symbol>> = symbols
        .into_iter()
        .enumerate()
        .map(|(i, symbol)| Node {
            symbol,
            prev: if i == 0 { NONE } else { i - 1 },
            next: i + 1,
            alive: true,
        })
        .collect();
    let n = nodes.len();
    if n <= 1 {
        return n;
    }
    nodes[n - 1].next = NONE;
    // (priority, position of the left symbol); the merged symbol is
    // looked up again when popped, so stale entries are recognised.
    let mut heap: BinaryHeap<Reverse<(u32, usize)>> = BinaryHeap::with_capacity(n);
    for i in 0..n - 1 {
        if let Some((priority, _)) = merges.merge(piece, nodes[i].symbol, nodes[i + 1].symbol) {
            heap.push(Reverse((priority, i)));
        }
    }
    let mut alive = n;
    let mut steps = 0usize;
    while let Some(Reverse((priority, at))) = heap.pop() {
        steps += 1;
        if steps.is_multiple_of(crate::cancel::STEPS_PER_CHECKPOINT) {
            crate::cancel::checkpoint();
        }
        let left = nodes[at];
        if !left.alive || left.next == NONE {
            continue;
        }
        let right = nodes[left.next];
        let Some((current, merged)) = merges.merge(piece, left.symbol, right.symbol) else {
            continue;
        };
        if current != priority {
            continue;
        }
        nodes[at].symbol = merged;
        nodes[at].next = right.next;
        nodes[left.next].alive = false;
        if right.next != NONE {
            nodes[right.next].prev = at;
        }
        alive -= 1;
        if left.prev != NONE
            && let Some((p, _)) = merges.merge(piece, nodes[left.prev].symbol, merged)
        {
            heap.push(Reverse((p, left.prev)));
        }
        if right.next != NONE
            && let Some((p, _)) = merges.merge(piece, merged, nodes[right.next].symbol)
        {
            heap.push(Reverse((p, at)));
        }
    }
    alive
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap;

    /// A toy tiktoken-style vocabulary: ranks of byte strings.
    struct Ranks(FxHashMap<Vec<u8>, u32>);

    impl Merges for Ranks {
        type Symbol = (usize, usize);
        fn byte(&self, _: &[u8], index: usize) -> (usize, usize) {
            (index, index + 1)
        }
        fn merge(
            &self,
            piece: &[u8],
            l: (usize, usize),
            r: (usize, usize),
        ) -> Option<(u32, (usize, usize))> {
            self.0.get(&piece[l.0..r.1]).map(|&rank| (rank, (l.0, r.1)))
        }
    }

    /// tiktoken's own quadratic loop, for comparison.
    fn quadratic(ranks: &Ranks, piece: &[u8]) -> usize {
        let mut parts: Vec<usize> = (0..=piece.len()).collect();
        loop {
            let mut best: Option<(u32, usize)> = None;
            for i in 0..parts.len().saturating_sub(2) {
                if let Some(&rank) = ranks.0.get(&piece[parts[i]..parts[i + 2]])
                    && best.is_none_or(|(b, _)| rank < b)
                {
                    best = Some((rank, i));
                }
            }
            match best {
                Some((_, i)) => {
                    parts.remove(i + 1);
                }
                None => return parts.len() - 1,
            }
        }
    }

    #[test]
    fn the_heap_loop_merges_like_the_quadratic_loop() {
        let mut ranks = FxHashMap::default();
        for (rank, token) in ["ab", "bc", "abc", "aa", "aaa", "aaaa", "ca", "cab", "bca"]
            .iter()
            .enumerate()
        {
            ranks.insert(token.as_bytes().to_vec(), rank as u32);
        }
        let ranks = Ranks(ranks);
        // Every word over {a, b, c} up to length 7.
        let mut words = vec![String::new()];
        for _ in 0..7 {
            let mut longer = Vec::new();
            for word in &words {
                for c in ['a', 'b', 'c'] {
                    longer.push(format!("{word}{c}"));
                }
            }
            for word in &longer {
                assert_eq!(
                    count(&ranks, word.as_bytes()),
                    quadratic(&ranks, word.as_bytes()),
                    "{word}"
                );
            }
            words = longer;
        }
    }
}
