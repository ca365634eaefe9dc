//! A C decoder for `utf8conf exhaustive --lib`: [`NativeDecoder`] fed a whole block of
//! the exhaustive space per batch, while the exhaustive workers ask for one input at a
//! time.
//!
//! The exhaustive checker calls [`Decoder::decode_into`] once per input, in the space's
//! order ([`crate::exhaustive::space`]): a block is every input of one length that shares
//! all but its last two bytes, and a worker thread goes through a block from its first
//! input (last two bytes `00 00`) to its last. One call per input would be one pipe round
//! trip per input; so when the first input of a block is asked for, [`BlockPrefetch`]
//! decodes the whole block in the worker's batches of [`BATCH_INPUTS`] and keeps the
//! outcomes in a *window* that the next 65,535 calls read from. Each thread works on its
//! own block, so one window per thread (plus one) is kept. Any other input (a re-run of a
//! departing input after its window was dropped, the shrunken inputs of minimisation) is
//! decoded on its own, as [`NativeDecoder`] would.

use std::collections::VecDeque;
use std::sync::Mutex;

use super::NativeDecoder;
use crate::adapter::AdapterError;
use crate::decoders::{Capabilities, Decoder};
use crate::exhaustive::space::{inputs_per_block, Block};
use crate::outcome::{Answer, DecoderFailure, Outcome};

/// Inputs per batch sent to the library worker (as `check --lib` sends them): a crash
/// makes the rest of its batch go one input at a time, so batches stay moderate.
pub const BATCH_INPUTS: usize = 2048;

/// Inputs of up to this many bytes are decoded at start to learn which fields the
/// library reports (the exhaustive checker asks for its capabilities before any input).
const PROBE_MAX_LEN: usize = 2;

/// The outcomes of one block.
struct Window {
    /// The block's input length.
    len: usize,
    /// The bytes shared by its inputs (all but the last two, big-endian; 0 for the
    /// lengths 0 and 1, which are one block each).
    prefix: u64,
    /// One result per input, in the block's order.
    results: Vec<Answer>,
}

/// Where an input sits in the exhaustive space: its block's length and prefix, and its
/// index in the block.
fn locate(input: &[u8]) -> (usize, u64, usize) {
    let len = input.len();
    let split = len.saturating_sub(2);
    let prefix = input[..split]
        .iter()
        .fold(0u64, |value, &byte| value << 8 | u64::from(byte));
    let index = input[split..]
        .iter()
        .fold(0usize, |value, &byte| value << 8 | usize::from(byte));
    (len, prefix, index)
}

/// Every input of the block of length `len` and `prefix`, in order, one after the other,
/// written by the space's own [`Block::input`]; and their number.
fn block_inputs(len: usize, prefix: u64) -> (Vec<u8>, usize) {
    let count = inputs_per_block(len);
    // Only `len`, `prefix` and `count` matter for writing the inputs.
    let block = Block {
        number: 0,
        len,
        prefix,
        first_index: 0,
        count,
    };
    let mut bytes = vec![0u8; count as usize * len];
    for (i, input) in bytes.chunks_exact_mut(len.max(1)).enumerate() {
        block.input(i as u64, input);
    }
    (bytes, count as usize)
}

/// Copies `cached` into `outcome`, keeping `outcome`'s allocations where it can
/// (`Option::clone_from` reuses the vector or string inside).
fn copy_outcome(cached: &Outcome, outcome: &mut Outcome) {
    outcome.decoder.clone_from(&cached.decoder);
    outcome.valid = cached.valid;
    outcome.valid_up_to = cached.valid_up_to;
    outcome.error_len = cached.error_len;
    outcome.scalars.clone_from(&cached.scalars);
    outcome.errors.clone_from(&cached.errors);
    outcome.error.clone_from(&cached.error);
}

/// A [`NativeDecoder`] that decodes the exhaustive space a block per batch.
pub struct BlockPrefetch {
    native: NativeDecoder,
    windows: Mutex<VecDeque<Window>>,
    kept: usize,
}

impl BlockPrefetch {
    /// Wraps `native` for `threads` exhaustive worker threads, after decoding every input
    /// of up to 2 bytes to learn which fields the library reports. Fails when the worker
    /// cannot be (re)started.
    pub fn new(native: NativeDecoder, threads: usize) -> Result<BlockPrefetch, AdapterError> {
        for len in 0..=PROBE_MAX_LEN {
            let (bytes, count) = block_inputs(len, 0);
            let inputs: Vec<&[u8]> = (0..count).map(|i| &bytes[i * len..(i + 1) * len]).collect();
            for batch in inputs.chunks(BATCH_INPUTS) {
                native
                    .decode_batch(batch)
                    .complete()
                    .map_err(|stop| AdapterError(stop.to_string()))?;
            }
        }
        Ok(BlockPrefetch {
            native,
            windows: Mutex::new(VecDeque::new()),
            kept: threads.max(1) + 1,
        })
    }

    /// Decodes the block of length `len` and `prefix` into a new window.
    fn fill(&self, len: usize, prefix: u64) -> Window {
        let (bytes, count) = block_inputs(len, prefix);
        let inputs: Vec<&[u8]> = (0..count).map(|i| &bytes[i * len..(i + 1) * len]).collect();
        let mut results = Vec::with_capacity(count);
        for batch in inputs.chunks(BATCH_INPUTS) {
            results.extend(Decoder::decode_batch(&self.native, batch));
        }
        Window {
            len,
            prefix,
            results,
        }
    }

    /// Serves `input` from a window, if one holds it.
    fn serve_from_window(
        &self,
        input: &[u8],
        outcome: &mut Outcome,
    ) -> Option<Result<(), DecoderFailure>> {
        let (len, prefix, index) = locate(input);
        let windows = self.lock();
        let window = windows
            .iter()
            .find(|window| window.len == len && window.prefix == prefix)?;
        Some(match window.results.get(index)? {
            Ok(cached) => {
                copy_outcome(cached, outcome);
                Ok(())
            }
            Err(failure) => Err(failure.clone()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Window>> {
        // The windows are only ever replaced whole: a panic elsewhere leaves them usable.
        self.windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Decoder for BlockPrefetch {
    fn name(&self) -> &str {
        self.native.name()
    }

    fn version(&self) -> String {
        self.native.version()
    }

    fn description(&self) -> &str {
        self.native.description()
    }

    /// The fields seen in the answers so far: those to every input of up to 2 bytes
    /// before the run, and any since.
    fn capabilities(&self) -> Capabilities {
        Decoder::capabilities(&self.native)
    }

    fn decode_into(&self, input: &[u8], outcome: &mut Outcome) -> Result<(), DecoderFailure> {
        if let Some(result) = self.serve_from_window(input, outcome) {
            return result;
        }
        let (len, prefix, index) = locate(input);
        if index != 0 || len == 0 {
            return self.native.decode_into(input, outcome);
        }
        // The first input of its block: the thread is about to go through the block.
        let window = self.fill(len, prefix);
        let result = match &window.results[0] {
            Ok(cached) => {
                copy_outcome(cached, outcome);
                Ok(())
            }
            Err(failure) => Err(failure.clone()),
        };
        let mut windows = self.lock();
        if windows.len() >= self.kept {
            windows.pop_front();
        }
        windows.push_back(window);
        result
    }

    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Answer> {
        Decoder::decode_batch(&self.native, inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_and_block_inputs_agree_with_the_space_order() {
        assert_eq!(locate(b""), (0, 0, 0));
        assert_eq!(locate(&[0x41]), (1, 0, 0x41));
        assert_eq!(locate(&[0xE2, 0x82, 0xAC]), (3, 0xE2, 0x82AC));
        assert_eq!(locate(&[1, 2, 3, 4]), (4, 0x0102, 0x0304));
        let (bytes, count) = block_inputs(3, 0xE2);
        assert_eq!(count, 65_536);
        assert_eq!(&bytes[0x82AC * 3..0x82AD * 3], &[0xE2, 0x82, 0xAC]);
        let (bytes, count) = block_inputs(1, 0);
        assert_eq!((count, bytes[0xFF]), (256, 0xFF));
        assert_eq!(block_inputs(0, 0), (Vec::new(), 1));
        // The space's own block of 4-byte inputs starting 01 02 holds the same inputs.
        let space = crate::exhaustive::space::Space::new(4).expect("4 is allowed");
        let block = (0..space.blocks())
            .map(|number| space.block(number))
            .find(|block| block.len == 4 && block.prefix == 0x0102)
            .expect("the block exists");
        let (bytes, count) = block_inputs(4, 0x0102);
        let mut input = [0u8; 4];
        for i in [0u64, 1, 0x1234, 0xFFFF] {
            block.input(i, &mut input);
            assert_eq!(&bytes[i as usize * 4..(i as usize + 1) * 4], &input);
        }
        assert_eq!(count as u64, block.count);
    }
}
