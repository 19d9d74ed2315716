//! Lexical relevance: BM25 (k1 = 1.2, b = 0.75) of the query's terms over
//! each document's text, and the query's terms found in its path, each
//! weighted by how few paths have it.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::terms;

/// For each document, how often it holds each of the query's terms and
/// how many terms it holds in all; for each query term, how many
/// documents and paths hold it. Only the query's terms are kept: the
/// documents are read once, nothing allocated per word.
pub(super) struct Lexical {
    /// `counts[document][term]`: how often the document holds query term
    /// `term` (by its position in the query).
    counts: Vec<Vec<u32>>,
    lengths: Vec<usize>,
    documents_with: Vec<u32>,
    /// For each document, the query terms its path holds (each once).
    path_terms: Vec<Vec<usize>>,
    paths_with: Vec<u32>,
    average: f64,
}

const K1: f64 = 1.2;
const B: f64 = 0.75;

impl Lexical {
    /// The index of `texts` (each with its id, for its path) for the query
    /// terms `query`.
    pub(super) fn new(texts: &[(&str, &str)], query: &[(String, u32)]) -> Lexical {
        let position: FxHashMap<&str, usize> = query
            .iter()
            .enumerate()
            .map(|(at, (term, _))| (term.as_str(), at))
            .collect();
        let scanned: Vec<(Vec<u32>, usize, Vec<usize>)> = texts
            .par_iter()
            .map(|(id, text)| {
                let mut counts = vec![0u32; query.len()];
                let mut length = 0;
                terms::each_term(text, |term| {
                    length += 1;
                    if let Some(&at) = position.get(term) {
                        counts[at] += 1;
                    }
                });
                let mut in_path: Vec<usize> = terms::path_terms(id)
                    .iter()
                    .filter_map(|term| position.get(term.as_str()).copied())
                    .collect();
                in_path.sort_unstable();
                in_path.dedup();
                (counts, length, in_path)
            })
            .collect();
        let mut documents_with = vec![0u32; query.len()];
        let mut paths_with = vec![0u32; query.len()];
        let mut counts = Vec::with_capacity(scanned.len());
        let mut lengths = Vec::with_capacity(scanned.len());
        let mut path_terms = Vec::with_capacity(scanned.len());
        for (document, length, in_path) in scanned {
            for (at, &n) in document.iter().enumerate() {
                if n > 0 {
                    documents_with[at] += 1;
                }
            }
            for &at in &in_path {
                paths_with[at] += 1;
            }
            counts.push(document);
            lengths.push(length);
            path_terms.push(in_path);
        }
        let average = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<usize>() as f64 / lengths.len() as f64).max(1.0)
        };
        Lexical {
            counts,
            lengths,
            documents_with,
            path_terms,
            paths_with,
            average,
        }
    }

    /// The BM25 score of document `index` for the query, and each query
    /// term's part of it (with the term's position in the query).
    pub(super) fn bm25(&self, index: usize) -> (f64, Vec<(f64, usize)>) {
        let n = self.counts.len() as f64;
        let mut score = 0.0;
        let mut parts = Vec::new();
        for (at, &f) in self.counts[index].iter().enumerate() {
            if f == 0 {
                continue;
            }
            let df = f64::from(self.documents_with[at]);
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            let f = f64::from(f);
            let norm = 1.0 - B + B * self.lengths[index] as f64 / self.average;
            let part = idf * f * (K1 + 1.0) / (f + K1 * norm);
            score += part;
            parts.push((part, at));
        }
        (score, parts)
    }

    /// The score of the query's terms in document `index`'s path: each
    /// term of the path the query has, weighted by how few paths have it.
    pub(super) fn path(&self, index: usize) -> f64 {
        let n = self.counts.len() as f64;
        self.path_terms[index]
            .iter()
            .map(|&at| (1.0 + n / (1.0 + f64::from(self.paths_with[at]))).ln())
            .sum()
    }
}
