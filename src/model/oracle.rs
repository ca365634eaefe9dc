//! Membership queries: a decoder's step outputs on a word, from its answers on every
//! prefix, cached in a prefix trie and asked for in batches.
//!
//! A query on `w` needs the decoder's answer on each prefix of `w` (the step output of
//! byte `i` compares the answers on `w[..i]` and `w[..=i]`, see [`super::output`]). The
//! learner's words share long prefixes (access words, then suffixes), so the answers are
//! kept in a trie keyed by the prefix: each prefix is decoded once. Before each phase the
//! learner hands the whole set of words it is about to ask to [`Oracle::prefetch`], which
//! sends every prefix not yet answered in one [`Decoder::decode_batch`] call per
//! [`BATCH`] inputs, so that an adapter pipe or a C library's worker answers many at once.

use crate::decoders::{Capabilities, Decoder};
use crate::outcome::Answer;

use super::output::{step_output, StepOutput};

/// Inputs per `decode_batch` call.
pub const BATCH: usize = 4096;

/// One trie node: the answer for the prefix it stands for, and its children by byte
/// (sorted, for binary search).
struct Node {
    answer: Option<Answer>,
    /// The output of the step into this node, once computed (it depends only on the
    /// answers here and at the parent, and on the word).
    step: Option<StepOutput>,
    children: Vec<(u8, u32)>,
}

/// A decoder behind a cached, batched membership oracle.
pub struct Oracle<'a> {
    decoder: &'a dyn Decoder,
    capabilities: Capabilities,
    nodes: Vec<Node>,
    /// Words looked up (membership queries, most answered from the cache).
    pub lookups: u64,
    /// Inputs the decoder decoded: the distinct prefixes of those words, the queries
    /// that reached the decoder.
    pub decodes: u64,
}

impl<'a> Oracle<'a> {
    /// An oracle over `decoder`, whose answers are abstracted for `capabilities` (the
    /// decoder's own, or fewer, so that two decoders are compared on what both report).
    pub fn new(decoder: &'a dyn Decoder, capabilities: Capabilities) -> Oracle<'a> {
        Oracle {
            decoder,
            capabilities,
            nodes: vec![Node {
                answer: None,
                step: None,
                children: Vec::new(),
            }],
            lookups: 0,
            decodes: 0,
        }
    }

    /// The capabilities the outputs are computed for.
    pub fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    fn child(&mut self, node: usize, byte: u8) -> usize {
        let slot = match self.nodes[node]
            .children
            .binary_search_by_key(&byte, |&(b, _)| b)
        {
            Ok(found) => return self.nodes[node].children[found].1 as usize,
            Err(slot) => slot,
        };
        let next = self.nodes.len();
        self.nodes.push(Node {
            answer: None,
            step: None,
            children: Vec::new(),
        });
        self.nodes[node].children.insert(slot, (byte, next as u32));
        next
    }

    /// The trie nodes of every prefix of `word`, the empty one first.
    fn path(&mut self, word: &[u8]) -> Vec<usize> {
        let mut path = Vec::with_capacity(word.len() + 1);
        let mut node = 0;
        path.push(node);
        for &byte in word {
            node = self.child(node, byte);
            path.push(node);
        }
        path
    }

    /// Decodes, in batches, every prefix of `words` not answered yet.
    pub fn prefetch<'w>(&mut self, words: impl IntoIterator<Item = &'w [u8]>) {
        let mut missing: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut pending = std::collections::HashSet::new();
        for word in words {
            let path = self.path(word);
            for (len, &node) in path.iter().enumerate() {
                if self.nodes[node].answer.is_none() && pending.insert(node) {
                    missing.push((node, word[..len].to_vec()));
                }
            }
            if missing.len() >= BATCH {
                self.answer(&mut missing);
            }
        }
        self.answer(&mut missing);
    }

    fn answer(&mut self, missing: &mut Vec<(usize, Vec<u8>)>) {
        if missing.is_empty() {
            return;
        }
        let inputs: Vec<&[u8]> = missing.iter().map(|(_, bytes)| bytes.as_slice()).collect();
        let answers = self.decoder.decode_batch(&inputs);
        self.decodes += answers.len() as u64;
        for ((node, _), answer) in missing.iter().zip(answers) {
            self.nodes[*node].answer = Some(answer);
        }
        missing.clear();
    }

    /// The step outputs of the bytes `word[from..]`, each read after the whole prefix
    /// before it.
    pub fn outputs_from(&mut self, word: &[u8], from: usize) -> Vec<StepOutput> {
        self.lookups += 1;
        let path = self.path(word);
        let missing: Vec<usize> = path
            .iter()
            .enumerate()
            .skip(from)
            .filter(|&(_, &node)| {
                self.nodes[node].step.is_none() && self.nodes[node].answer.is_none()
            })
            .map(|(len, _)| len)
            .collect();
        if !missing.is_empty() {
            let mut batch: Vec<(usize, Vec<u8>)> = missing
                .into_iter()
                .map(|len| (path[len], word[..len].to_vec()))
                .collect();
            self.answer(&mut batch);
        }
        (from..word.len())
            .map(|k| {
                if let Some(step) = self.nodes[path[k + 1]].step {
                    return step;
                }
                let before = self.nodes[path[k]].answer.as_ref().expect("answered");
                let after = self.nodes[path[k + 1]].answer.as_ref().expect("answered");
                let step = step_output(self.capabilities, &word[..=k], before, after);
                self.nodes[path[k + 1]].step = Some(step);
                step
            })
            .collect()
    }

    /// The step outputs of every byte of `word`.
    pub fn outputs(&mut self, word: &[u8]) -> Vec<StepOutput> {
        self.outputs_from(word, 0)
    }
}
