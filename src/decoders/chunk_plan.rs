//! Chunk plans: how an input is cut into the pieces a streaming decoder is fed.
//!
//! A streaming decoder sees its input in pieces and must carry an unfinished sequence
//! from one piece to the next: `E4 | BD A0` is one character, `E4 BD | 41` one truncation,
//! `ED | A0 80` a surrogate however it is cut. The bugs live in that carried state (a
//! partial sequence forgotten, a lookbehind not reset, an error reported at the wrong
//! offset). This module is the one place that says how inputs are cut; the streaming
//! decoders ([`super::streaming`]), the fuzz crate and `utf8conf seed-corpus` all use it.
//!
//! A splitting is written as its chunk boundaries: a non-decreasing list of offsets in
//! `0..=len`; the chunks are the spans between `0`, the boundaries, and `len` (see
//! [`chunks`]). An empty list is the whole input in one chunk; a repeated offset, or `0`
//! or `len`, makes an empty chunk: a decoder must treat an empty chunk as nothing, not as
//! the end of input.
//!
//! Two kinds of plan use it ([`ChunkPlan`]):
//!
//! - **Per input** (the engine): [`chunkings`] lists the splittings worth trying for an
//!   input of `len` bytes: (1) every split into two chunks, at each offset `1..len`; (2) one
//!   byte per chunk (3 bytes or more; shorter ones are covered by 1); (3)
//!   [`SEEDED_SPLITTINGS`] seeded splittings into chunks of skewed sizes (mostly 1..=3
//!   bytes, some up to 300), with an empty chunk now and then. The engine feeds each input
//!   to a streaming decoder once, so each input gets *one* of them, chosen by the bytes
//!   alone (a report is reproduced by decoding its minimised input again, which must be
//!   split the same way): the splitting whose position in `chunkings(input, CHUNKING_SEED)`
//!   is the input's FNV-1a hash modulo their number ([`chunk_boundaries`]). Over a corpus
//!   of millions of inputs every kind of splitting is exercised. Picking one does not build
//!   the splittings before it ([`Chunkings::nth`]).
//! - **Cycled sizes** (the fuzz crate's `streaming` target): chunk sizes read from the
//!   fuzz input and used in turn ([`CycledSizes`], whose byte format is defined here once).

use std::cell::RefCell;

use crate::rng::Rng;
use crate::stable_hash::fnv1a64;

/// The seed of the seeded splittings of per-input plans: fixed, so that a plan depends on
/// the input alone.
pub const CHUNKING_SEED: u64 = 0;

/// How many seeded multi-chunk splittings [`chunkings`] adds after the systematic ones.
pub const SEEDED_SPLITTINGS: usize = 16;

/// The chunks of `bytes` for the chunk `boundaries` (non-decreasing, each at most
/// `bytes.len()`), in order; empty chunks included.
pub fn chunks<'a: 'b, 'b>(
    bytes: &'a [u8],
    boundaries: &'b [usize],
) -> impl Iterator<Item = &'a [u8]> + 'b {
    let starts = std::iter::once(0).chain(boundaries.iter().copied());
    let ends = boundaries
        .iter()
        .copied()
        .chain(std::iter::once(bytes.len()));
    starts.zip(ends).map(move |(start, end)| &bytes[start..end])
}

/// Every splitting of an input of `bytes.len()` bytes to try (see the module
/// documentation), as chunk boundaries. The seeded splittings depend on `seed` and the
/// input's length only, so they are reproducible from a report.
pub fn chunkings(bytes: &[u8], seed: u64) -> Chunkings {
    let len = bytes.len();
    Chunkings {
        len,
        next: 0,
        rng: Rng::for_input(seed, "chunkings", len as u64),
    }
}

/// How many splittings [`chunkings`] yields for an input of `len` bytes.
pub fn chunking_count(len: usize) -> usize {
    systematic_count(len) + SEEDED_SPLITTINGS
}

/// How many of them are systematic (two chunks, one byte per chunk).
fn systematic_count(len: usize) -> usize {
    len.saturating_sub(1) + usize::from(len >= 3)
}

/// The splittings of [`chunkings`], in order. `nth` skips splittings without building
/// them (the seeded ones only advance the random generator), so choosing one costs one
/// allocation, not one per splitting skipped.
#[derive(Debug, Clone)]
pub struct Chunkings {
    len: usize,
    next: usize,
    rng: Rng,
}

impl Chunkings {
    /// Passes over the next splitting without building it; false when there is none.
    fn skip_one(&mut self) -> bool {
        if self.next >= chunking_count(self.len) {
            return false;
        }
        if self.next >= systematic_count(self.len) {
            seeded_splitting(&mut self.rng, self.len, |_| {});
        }
        self.next += 1;
        true
    }
}

impl Iterator for Chunkings {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let index = self.next;
        let len = self.len;
        if index >= chunking_count(len) {
            return None;
        }
        self.next += 1;
        let two_chunks = len.saturating_sub(1);
        Some(if index < two_chunks {
            vec![index + 1]
        } else if index < systematic_count(len) {
            (1..len).collect()
        } else {
            let mut boundaries = Vec::new();
            seeded_splitting(&mut self.rng, len, |boundary| boundaries.push(boundary));
            boundaries
        })
    }

    fn nth(&mut self, n: usize) -> Option<Vec<usize>> {
        for _ in 0..n {
            if !self.skip_one() {
                return None;
            }
        }
        self.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = chunking_count(self.len).saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Chunkings {}

/// One splitting with chunk sizes skewed toward short ones, one chunk in sixteen empty:
/// calls `boundary` with each chunk boundary in order.
fn seeded_splitting(rng: &mut Rng, len: usize, mut boundary: impl FnMut(usize)) {
    const SIZES: [(u64, usize, usize); 5] =
        [(1, 0, 0), (8, 1, 3), (4, 4, 16), (2, 17, 64), (1, 65, 300)];
    let mut any = false;
    let mut position = 0;
    loop {
        position += rng.skewed_len(&SIZES);
        if position >= len {
            break;
        }
        boundary(position);
        any = true;
    }
    if !any && len >= 2 {
        // The first chunk was drawn longer than the input: split it somewhere after all.
        boundary(rng.in_range(1, len as u64 - 1) as usize);
    }
    if rng.chance(1, 8) {
        // An empty last chunk.
        boundary(len);
    }
}

/// The chunk boundaries of `input`'s per-input plan (see the module documentation).
pub fn chunk_boundaries(input: &[u8]) -> Vec<usize> {
    with_chunk_boundaries(input, <[usize]>::to_vec)
}

/// The index, in [`chunkings`], of `input`'s per-input splitting.
fn chosen_splitting(input: &[u8]) -> usize {
    let count = chunking_count(input.len()) as u64;
    (fnv1a64(input) % count.max(1)) as usize
}

/// Inputs up to this many bytes have their splittings made once per thread and kept
/// ([`with_chunk_boundaries`]): the splittings depend on the length alone, and drawing the
/// seeded ones again for every short input was most of a streaming decoder's cost on them.
pub const CACHED_SPLITTING_LEN: usize = 32;

thread_local! {
    /// Every splitting of each length up to [`CACHED_SPLITTING_LEN`], in [`chunkings`]
    /// order, made on first use of the length.
    static SPLITTINGS: RefCell<Vec<Option<Vec<Vec<usize>>>>> =
        RefCell::new(vec![None; CACHED_SPLITTING_LEN + 1]);
}

/// Calls `f` with the chunk boundaries of `input`'s per-input plan, the same as
/// [`chunk_boundaries`] but without allocating for a short input once its length was seen.
pub fn with_chunk_boundaries<R>(input: &[u8], f: impl FnOnce(&[usize]) -> R) -> R {
    let choice = chosen_splitting(input);
    let len = input.len();
    if len > CACHED_SPLITTING_LEN {
        let boundaries = chunkings(input, CHUNKING_SEED)
            .nth(choice)
            .unwrap_or_default();
        return f(&boundaries);
    }
    SPLITTINGS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let splittings =
            cache[len].get_or_insert_with(|| chunkings(input, CHUNKING_SEED).collect());
        f(splittings.get(choice).map_or(&[], Vec::as_slice))
    })
}

/// Chunk sizes used in turn, cycling, until the text is used up, so a short list still
/// cuts a long text everywhere (the fuzz `streaming` target's plan). Sizes up to
/// [`CycledSizes::MAX_SIZE`] put cuts inside and across 16/32/64-byte blocks.
///
/// As bytes (fuzz input, seed corpora) a plan comes before the text it cuts:
///
/// ```text
/// byte 0          k = byte % 8, the number of chunk sizes (0: the whole text in one chunk)
/// bytes 1..=k     chunk sizes, each byte % 65 (0..=64; a 0 feeds an empty chunk)
/// bytes k+1..     the text
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CycledSizes {
    /// Chunk sizes, used in turn and cycled; empty means one chunk. Never all zero.
    sizes: Vec<usize>,
}

impl CycledSizes {
    /// The largest number of chunk sizes in a plan.
    pub const MAX_SIZES: usize = 7;
    /// The largest chunk size.
    pub const MAX_SIZE: usize = 64;

    /// The plan of `sizes`, or `None` when the byte format cannot hold them (more than
    /// [`Self::MAX_SIZES`] sizes, or one above [`Self::MAX_SIZE`]). Sizes that are all zero
    /// feed the text in one chunk (empty chunks alone would never finish).
    pub fn new(sizes: &[usize]) -> Option<CycledSizes> {
        if sizes.len() > Self::MAX_SIZES || sizes.iter().any(|&size| size > Self::MAX_SIZE) {
            return None;
        }
        let sizes = if sizes.iter().all(|&size| size == 0) {
            Vec::new()
        } else {
            sizes.to_vec()
        };
        Some(CycledSizes { sizes })
    }

    /// Reads a plan and the text after it from bytes (see the type's documentation).
    /// Every byte string is a plan.
    pub fn parse(data: &[u8]) -> (CycledSizes, &[u8]) {
        let Some((&count, rest)) = data.split_first() else {
            return (CycledSizes::default(), data);
        };
        let count = (usize::from(count) % (Self::MAX_SIZES + 1)).min(rest.len());
        let (plan, text) = rest.split_at(count);
        let sizes: Vec<usize> = plan
            .iter()
            .map(|&byte| usize::from(byte) % (Self::MAX_SIZE + 1))
            .collect();
        let plan = CycledSizes::new(&sizes).expect("parsed sizes are within the format");
        (plan, text)
    }

    /// Writes the plan followed by `text` as bytes: the inverse of [`CycledSizes::parse`].
    pub fn encode(&self, text: &[u8]) -> Vec<u8> {
        let mut data = Vec::with_capacity(1 + self.sizes.len() + text.len());
        data.push(self.sizes.len() as u8);
        data.extend(self.sizes.iter().map(|&size| size as u8));
        data.extend_from_slice(text);
        data
    }

    /// The chunk sizes (empty: one chunk).
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The chunks of `text`, in order; their concatenation is the text.
    pub fn chunks<'a: 'p, 'p>(&'p self, text: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'p {
        // Cycled sizes cut nothing out of an empty text; one chunk is the text, even empty.
        let mut rest = (self.sizes.is_empty() || !text.is_empty()).then_some(text);
        let mut sizes = self.sizes.iter().cycle();
        std::iter::from_fn(move || {
            let left = rest?;
            match sizes.next() {
                None => {
                    rest = None;
                    Some(left)
                }
                Some(&size) => {
                    let (chunk, tail) = left.split_at(size.min(left.len()));
                    rest = (!tail.is_empty()).then_some(tail);
                    Some(chunk)
                }
            }
        })
    }

    /// The plan in words, for reports.
    pub fn describe(&self) -> String {
        if self.sizes.is_empty() {
            "fed in one chunk".to_string()
        } else {
            format!("fed in chunks of {:?} bytes, cycled", self.sizes)
        }
    }
}

/// How a streaming decoder's input is cut (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkPlan {
    /// The per-input plan: one of [`chunkings`], chosen by the input's hash.
    PerInput,
    /// Fixed chunk sizes, cycled.
    Cycled(CycledSizes),
}

impl ChunkPlan {
    /// Puts the chunks of `input` under this plan into `chunks` (cleared first).
    pub fn cut<'a>(&self, input: &'a [u8], out: &mut Vec<&'a [u8]>) {
        out.clear();
        self.with_chunks(input, |chunks| out.extend_from_slice(chunks));
    }

    /// Calls `f` with the chunks of `input` under this plan, as [`ChunkPlan::cut`] makes
    /// them, held on the stack when there are at most [`STACK_CHUNKS`] of them (no
    /// allocation per input on the engine's hot path).
    pub fn with_chunks<'a, R>(&self, input: &'a [u8], f: impl FnOnce(&[&'a [u8]]) -> R) -> R {
        match self {
            ChunkPlan::PerInput => with_chunk_boundaries(input, |boundaries| {
                with_chunk_list(chunks(input, boundaries), f)
            }),
            ChunkPlan::Cycled(sizes) => with_chunk_list(sizes.chunks(input), f),
        }
    }
}

/// The number of chunks [`ChunkPlan::with_chunks`] holds on the stack.
pub const STACK_CHUNKS: usize = 16;

/// Collects `pieces` into a stack array, or a `Vec` when there are more than
/// [`STACK_CHUNKS`], and calls `f` with them.
fn with_chunk_list<'a, R>(
    mut pieces: impl Iterator<Item = &'a [u8]>,
    f: impl FnOnce(&[&'a [u8]]) -> R,
) -> R {
    let mut stack: [&'a [u8]; STACK_CHUNKS] = [&[]; STACK_CHUNKS];
    let mut count = 0;
    for slot in stack.iter_mut() {
        match pieces.next() {
            Some(piece) => {
                *slot = piece;
                count += 1;
            }
            None => return f(&stack[..count]),
        }
    }
    match pieces.next() {
        None => f(&stack),
        Some(piece) => {
            let mut heap = stack.to_vec();
            heap.push(piece);
            heap.extend(pieces);
            f(&heap)
        }
    }
}

#[cfg(test)]
#[path = "chunk_plan/tests.rs"]
mod tests;
