//! The code graph: a file uses what another file defines when its text
//! names it, and relevance spreads along those uses from the files the
//! query matched, by personalized PageRank (as aider's repository map
//! ranks a repository for a chat).

use std::collections::BTreeSet;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::terms;

/// A name defined in more files than this says nothing about which one
/// is meant.
const MOST_DEFINERS: usize = 5;

/// How often the walk restarts at the matched files.
const RESTART: f64 = 0.15;

/// Rounds of the power iteration.
const ROUNDS: usize = 30;

/// Uses between files: for each file, the files whose definitions it
/// names, with a weight.
pub(super) struct Graph {
    edges: Vec<Vec<(usize, f64)>>,
}

impl Graph {
    /// The uses among `texts`, where `definitions[i]` are the names file
    /// `i` defines and `code[i]` says whether it is source (only source
    /// files use names).
    pub(super) fn new(texts: &[&str], definitions: &[BTreeSet<String>], code: &[bool]) -> Graph {
        let mut definers: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        for (index, names) in definitions.iter().enumerate() {
            for name in names {
                definers.entry(name.as_str()).or_default().push(index);
            }
        }
        let edges = texts
            .par_iter()
            .enumerate()
            .map(|(index, text)| {
                if !code[index] {
                    return Vec::new();
                }
                let mut named: FxHashMap<&str, u32> = FxHashMap::default();
                for word in terms::identifiers(text).filter(|word| word.len() > 2) {
                    *named.entry(word).or_default() += 1;
                }
                let mut weights: FxHashMap<usize, f64> = FxHashMap::default();
                for (word, times) in named {
                    let Some(owners) = definers.get(word) else {
                        continue;
                    };
                    if owners.len() > MOST_DEFINERS {
                        continue;
                    }
                    for &owner in owners {
                        if owner != index {
                            *weights.entry(owner).or_default() +=
                                f64::from(times).sqrt() / owners.len() as f64;
                        }
                    }
                }
                let mut edges: Vec<(usize, f64)> = weights.into_iter().collect();
                edges.sort_by_key(|&(to, _)| to);
                edges
            })
            .collect();
        Graph { edges }
    }

    /// Personalized PageRank from `seed` (each file's weight at restart):
    /// each file's share of the walk's time.
    pub(super) fn spread(&self, seed: &[f64]) -> Vec<f64> {
        let n = seed.len();
        let total: f64 = seed.iter().sum();
        if total <= 0.0 {
            return vec![0.0; n];
        }
        let start: Vec<f64> = seed.iter().map(|s| s / total).collect();
        let mut rank = start.clone();
        for _ in 0..ROUNDS {
            let mut next: Vec<f64> = start.iter().map(|s| RESTART * s).collect();
            let mut dangling = 0.0;
            for (from, edges) in self.edges.iter().enumerate() {
                let flow = (1.0 - RESTART) * rank[from];
                let weight: f64 = edges.iter().map(|&(_, w)| w).sum();
                if weight <= 0.0 {
                    dangling += flow;
                    continue;
                }
                for &(to, w) in edges {
                    next[to] += flow * w / weight;
                }
            }
            for (value, s) in next.iter_mut().zip(&start) {
                *value += dangling * s;
            }
            rank = next;
        }
        rank
    }

    /// The file with the heaviest use edge into `to` among `from`, for the
    /// evidence of a file the graph brought in.
    pub(super) fn strongest_user(&self, to: usize, from: &[usize]) -> Option<usize> {
        from.iter()
            .filter_map(|&user| {
                self.edges[user]
                    .iter()
                    .find(|&&(target, _)| target == to)
                    .map(|&(_, weight)| (user, weight))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(user, _)| user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relevance_spreads_to_the_files_a_matched_file_uses() {
        let texts = [
            "fn main() { helper(); }",
            "fn helper() {}",
            "fn unrelated() {}",
        ];
        let definitions: Vec<BTreeSet<String>> = texts
            .iter()
            .map(|text| super::super::symbols::definitions(text))
            .collect();
        let graph = Graph::new(&texts, &definitions, &[true, true, true]);
        let rank = graph.spread(&[1.0, 0.0, 0.0]);
        assert!(rank[1] > rank[2], "{rank:?}");
        assert_eq!(graph.strongest_user(1, &[0, 2]), Some(0));
        assert_eq!(graph.spread(&[0.0, 0.0, 0.0]), [0.0, 0.0, 0.0]);
    }
}
