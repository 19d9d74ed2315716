//! Relevance to a query (SPEC §3.3): which documents a task needs first.
//!
//! Deterministic and offline. Four signals, each scaled to its largest
//! value over the documents, then added with fixed weights:
//!
//! - **lexical** (`rank/lexical.rs`): BM25 of the query's terms over each
//!   document's text, and the query's terms in its path (weight 1 and
//!   0.5); terms are words and identifiers split at `_` and case changes
//!   (`rank/terms.rs`);
//! - **symbols** (`rank/symbols.rs`): what the query names as code (identifiers
//!   in backticks, `camelCase`, `snake_case`, calls, paths) found among the
//!   names a source file defines, or in its path (weight 0.3);
//! - **graph** (`rank/graph.rs`): personalized PageRank over the uses between
//!   source files (a file uses what another defines when it names it),
//!   from the documents the first two matched (weight 0.2);
//! - **prior** (`rank/prior.rs`): the default order as a small score (the first
//!   document 0.05, the last 0), and the sum multiplied by a factor for the
//!   kind of file: tests, examples and benchmarks 0.3, documentation 0.5
//!   (not the README), data and configuration 0.7.
//!
//! Ties keep the default order. The weights were chosen on the development
//! tasks of `scripts/relevance/` and measured on the held-out ones
//! (docs/measurements.md).

mod graph;
mod lexical;
pub(crate) mod prior;
mod symbols;
mod terms;

use std::collections::BTreeSet;

use rayon::prelude::*;

use crate::fixture::Document;

/// Weight of the BM25 score.
const LEXICAL: f64 = 1.0;
/// Weight of the query's terms in the path.
const PATH: f64 = 0.5;
/// Weight of the symbols matched.
const SYMBOLS: f64 = 0.3;
/// Weight of the spread along uses.
const GRAPH: f64 = 0.2;

/// How many matched terms a document's evidence names.
const EVIDENCE_TERMS: usize = 5;

/// Why a document ranks where it does.
#[derive(Debug, Clone, PartialEq)]
pub struct Relevance {
    /// Its place, 1 for the most relevant.
    pub rank: usize,
    /// Its score (larger is more relevant), to four decimals.
    pub score: f64,
    /// The query's terms that matched its text most, best first.
    pub terms: Vec<String>,
    /// The symbols of the query it defines or its path names.
    pub symbols: Vec<String>,
    /// The document (by index) that uses it and brought it in, when the
    /// graph is what made it relevant.
    pub used_by: Option<usize>,
}

/// Scores are finite (sums and products of finite numbers), never NaN.
impl Eq for Relevance {}

/// Documents in the order of their relevance to a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// Every document's index, the most relevant first.
    pub order: Vec<usize>,
    /// Each document's relevance, by its index.
    pub relevance: Vec<Relevance>,
    /// The query's terms that weigh most in the best documents, best
    /// first: what a focused excerpt looks for.
    pub focus: Vec<String>,
}

/// Whether a query has at least one term to rank with.
pub fn has_terms(query: &str) -> bool {
    !terms::terms(query).is_empty() || !symbols::query_symbols(query).is_empty()
}

/// Ranks `documents` (in their default order) for `query`.
pub fn rank(documents: &[Document], query: &str) -> Ranking {
    let n = documents.len();
    let texts: Vec<(&str, &str)> = documents
        .iter()
        .map(|d| (d.id.as_str(), d.content.as_str()))
        .collect();
    let mut counts: Vec<(String, u32)> = Vec::new();
    for term in terms::terms(query) {
        match counts.iter_mut().find(|(t, _)| *t == term) {
            Some((_, count)) => *count += 1,
            None => counts.push((term, 1)),
        }
    }
    let index = lexical::Lexical::new(&texts, &counts);
    let code: Vec<bool> = documents.iter().map(|d| prior::is_source(&d.id)).collect();
    let definitions: Vec<BTreeSet<String>> = documents
        .par_iter()
        .zip(&code)
        .map(|(d, &code)| {
            if code {
                symbols::definitions(&d.content)
            } else {
                BTreeSet::new()
            }
        })
        .collect();
    let wanted = symbols::query_symbols(query);

    let mut lexical = Vec::with_capacity(n);
    let mut matched_terms = Vec::with_capacity(n);
    let mut path = Vec::with_capacity(n);
    let mut symbol = Vec::with_capacity(n);
    let mut matched_symbols = Vec::with_capacity(n);
    for (i, document) in documents.iter().enumerate() {
        let (score, mut parts) = index.bm25(i);
        lexical.push(score);
        parts.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        matched_terms.push(
            parts
                .iter()
                .take(EVIDENCE_TERMS)
                .map(|&(_, at)| counts[at].0.clone())
                .collect::<Vec<_>>(),
        );
        path.push(index.path(i));
        let mut score = 0.0;
        let mut names = Vec::new();
        for wanted in &wanted {
            let found = if symbols::is_path(wanted) {
                document.id.ends_with(wanted.as_str()) || document.id.contains(wanted.as_str())
            } else {
                definitions[i].contains(wanted)
            };
            if found {
                score += if symbols::is_path(wanted) { 3.0 } else { 1.0 };
                names.push(wanted.clone());
            }
        }
        symbol.push(score);
        matched_symbols.push(names);
    }
    let (lexical, path, symbol) = (scaled(&lexical), scaled(&path), scaled(&symbol));
    let base: Vec<f64> = (0..n)
        .map(|i| LEXICAL * lexical[i] + PATH * path[i] + SYMBOLS * symbol[i])
        .collect();
    let graph = graph::Graph::new(
        &documents
            .iter()
            .map(|d| d.content.as_str())
            .collect::<Vec<_>>(),
        &definitions,
        &code,
    );
    let seed: Vec<f64> = base.iter().map(|b| b.max(0.0).powi(2)).collect();
    let spread = scaled(&graph.spread(&seed));
    let scores: Vec<f64> = (0..n)
        .map(|i| {
            let order = prior::ORDER_WEIGHT * (1.0 - i as f64 / n.max(1) as f64);
            (base[i] + GRAPH * spread[i] + order) * prior::kind_factor(&documents[i].id)
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    // The documents that seeded the walk most, for the evidence of those
    // the graph brought in.
    let mut seeded: Vec<usize> = (0..n).filter(|&i| base[i] > 0.0).collect();
    seeded.sort_by(|&a, &b| base[b].total_cmp(&base[a]).then(a.cmp(&b)));
    seeded.truncate(10);
    let mut relevance: Vec<Relevance> = (0..n)
        .map(|i| Relevance {
            rank: 0,
            score: (scores[i] * 10_000.0).round() / 10_000.0,
            terms: std::mem::take(&mut matched_terms[i]),
            symbols: std::mem::take(&mut matched_symbols[i]),
            used_by: (base[i] == 0.0 && spread[i] > 0.0)
                .then(|| graph.strongest_user(i, &seeded))
                .flatten(),
        })
        .collect();
    for (place, &i) in order.iter().enumerate() {
        relevance[i].rank = place + 1;
    }
    // The terms that weigh most in the best ten documents.
    let mut weight: Vec<(f64, usize)> = Vec::new();
    for &i in order.iter().take(10) {
        for (part, at) in index.bm25(i).1 {
            match weight.iter_mut().find(|(_, a)| *a == at) {
                Some((w, _)) => *w += part,
                None => weight.push((part, at)),
            }
        }
    }
    weight.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let focus = weight
        .iter()
        .take(8)
        .map(|&(_, at)| counts[at].0.clone())
        .collect();
    Ranking {
        order,
        relevance,
        focus,
    }
}

/// `values` divided by the largest (all 0 when none is positive).
fn scaled(values: &[f64]) -> Vec<f64> {
    let largest = values.iter().copied().fold(0.0, f64::max);
    if largest > 0.0 {
        values.iter().map(|v| v / largest).collect()
    } else {
        vec![0.0; values.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{Format, Source};

    fn documents(files: &[(&str, &str)]) -> Vec<Document> {
        files
            .iter()
            .enumerate()
            .map(|(index, (id, content))| Document {
                index,
                id: (*id).into(),
                source: Source::Path((*id).into()),
                format: Format::Text,
                content: (*content).into(),
                priority: 0,
                required: false,
            })
            .collect()
    }

    #[test]
    fn the_file_that_defines_what_the_query_names_ranks_first_with_its_evidence() {
        let docs = documents(&[
            ("README.md", "# Walker\nA tool that walks directories.\n"),
            (
                "src/main.rs",
                "fn main() { let w = walk::build(); w.run(); }\n",
            ),
            (
                "src/walk.rs",
                "pub fn build() -> Walker { Walker }\npub struct WalkParallel;\nimpl WalkParallel { fn visit() { /* panics are caught */ } }\n",
            ),
            (
                "tests/walk.rs",
                "fn walk_parallel_visitor_panics() { WalkParallel::visit(); }\n",
            ),
        ]);
        let ranking = rank(
            &docs,
            "`WalkParallel` hangs when a visitor panics in the parallel walker",
        );
        assert_eq!(ranking.order[0], 2, "{ranking:?}");
        let best = &ranking.relevance[2];
        assert_eq!(best.rank, 1);
        assert!(best.symbols.contains(&"WalkParallel".to_owned()));
        assert!(best.terms.iter().any(|t| t == "panics"), "{:?}", best.terms);
        // The test file names it too, but tests weigh less.
        assert!(ranking.relevance[3].rank > 1);
        assert!(!ranking.focus.is_empty());
        // The same input gives the same ranking.
        assert_eq!(
            rank(
                &docs,
                "`WalkParallel` hangs when a visitor panics in the parallel walker"
            ),
            ranking
        );
    }

    #[test]
    fn with_nothing_matched_the_default_order_stands() {
        let docs = documents(&[("a.txt", "alpha"), ("b.txt", "beta"), ("c.txt", "gamma")]);
        assert_eq!(rank(&docs, "zeta").order, [0, 1, 2]);
        assert!(has_terms("zeta") && !has_terms("the a of"));
    }
}
