//! UTF-8 to UTF-32 conversion over [`Kernel16`]: validation chunk by chunk with the SIMD
//! detector, then a table-driven conversion of each chunk known to be well-formed.
//!
//! From the positions of character ends in 12 bytes, a table (built at compile time by
//! [`super::tables`]) picks a shuffle that puts the bytes of the next 6 characters (if
//! none is longer than 2 bytes), else of the next 3 or 4, into 32-bit lanes, and a few
//! masks and multiply-adds assemble the scalar values. All-ASCII 64-byte blocks are
//! widened directly (ASCII among other characters goes through the six-character
//! steps); leading ASCII blocks are converted as they are checked. Errors are located
//! by the DFA, never here.

use super::tables::{self, SHORT_BASE};
use super::units::Unit;
use super::validate::{first_bad_block, BLOCK};
use super::vector::{assert_vector_width, Kernel16, Vector};
use crate::fast::dfa;
use crate::fast::Utf8Error;

/// Input bytes validated and converted per step of [`decode_utf32`]: large enough to
/// amortise the validation call, small enough to stay in L1 between the two passes.
const DECODE_CHUNK: usize = 8 * 1024;

/// Appends the scalar values of `bytes` to `out`; on error, those of the well-formed
/// prefix, and returns the error (std's shape). Validation with `V`, conversion with the
/// 16-byte kernel `K`.
///
/// # Safety
/// The instruction sets of `V` and `K` must be available.
#[inline(always)]
pub unsafe fn decode_utf32<V: Vector, K: Kernel16>(
    bytes: &[u8],
    out: &mut Vec<u32>,
) -> Result<(), Utf8Error> {
    // SAFETY: the instruction sets of `V` and `K` are available (caller's contract).
    unsafe { decode_utf32_by::<V, WithKernel16<K>>(bytes, out) }
}

/// A conversion of well-formed UTF-8 to scalar values, plugged into [`decode_utf32_by`].
/// A trait rather than a closure so that the conversion is inlined into, and compiled
/// with the target features of, the backend's `#[target_feature]` function.
pub trait ConvertValid {
    /// Appends the scalar values of `bytes` to `out`.
    ///
    /// # Safety
    /// `bytes` must be well-formed UTF-8, and the implementation's instruction set
    /// available.
    unsafe fn convert_valid(bytes: &[u8], out: &mut Vec<u32>);
    /// Appends the scalar values of a prefix of `bytes` that is all ASCII (any bytes: an
    /// ASCII prefix is well-formed whatever follows it), in whole 64-byte blocks (the
    /// first block may be shortened to align the output), and returns its length.
    /// Validation and conversion in one pass, for ASCII runs, where the conversion is as
    /// cheap as the validation.
    ///
    /// # Safety
    /// The implementation's instruction set must be available.
    unsafe fn convert_ascii(bytes: &[u8], out: &mut Vec<u32>) -> usize;
}

/// [`ConvertValid`] by the table-driven 16-byte kernel `K`.
pub struct WithKernel16<K>(core::marker::PhantomData<K>);

impl<K: Kernel16> ConvertValid for WithKernel16<K> {
    #[inline(always)]
    unsafe fn convert_valid(bytes: &[u8], out: &mut Vec<u32>) {
        // SAFETY: the same contract.
        unsafe { convert_valid::<K, u32>(bytes, out) }
    }

    #[inline(always)]
    unsafe fn convert_ascii(bytes: &[u8], out: &mut Vec<u32>) -> usize {
        // SAFETY: `K`'s instruction set is available (caller's contract), and `widen16`
        // writes the 16 scalars `widen_ascii_plain` has room for. The plain form: the
        // aligned one, inlined into this conversion's chunk loop, slowed it by 3-5% on
        // CJK and emoji text (see `benches/README.md`).
        unsafe { widen_ascii_plain::<K, u32>(bytes, out, |src, dst| K::widen16(src, dst)) }
    }
}

/// Widens a prefix of `bytes` that is all ASCII to `out` (one unit per byte, `widen16`
/// writing 16 units from 16 bytes), and returns its length: validation and conversion in
/// one pass, for UTF-32 and UTF-16 output. The prefix is made of 64-byte blocks: the
/// first block is widened whole, but the next starts where the output reaches a
/// 64-byte boundary, so that no later store splits a cache line (the output buffer's
/// alignment is the allocator's, 16 bytes or a page plus 16 as a rule); when fewer than
/// 64 bytes are left and they are ASCII too, they are widened as the last 64 bytes of
/// `bytes`, over units already written, so that an input all ASCII ends here and not
/// in a chunk of its own.
///
/// # Safety
/// `K`'s instruction set must be available; `widen16(src, dst)` must read 16 bytes at
/// `src` and write at most 16 units at `dst`.
#[inline(always)]
pub(super) unsafe fn widen_ascii_blocks<K: Kernel16, T>(
    bytes: &[u8],
    out: &mut Vec<T>,
    widen16: impl Fn(*const u8, *mut T),
) -> usize {
    let len = bytes.len();
    if len < BLOCK {
        return 0;
    }
    // At most one unit per byte.
    out.reserve(len);
    let base = out.len();
    let src = bytes.as_ptr();
    // SAFETY: loads read `pos..pos + 64 <= len`, stores write units
    // `base + pos..base + pos + 64`, within the capacity reserved for `len` more.
    unsafe {
        let dst = out.as_mut_ptr().add(base);
        if !ascii_block::<K>(src) {
            return 0;
        }
        widen_block(src, dst, &widen16);
        // Units to the output's next 64-byte boundary, all inside the first block.
        let head = (BLOCK - dst as usize % BLOCK) % BLOCK / core::mem::size_of::<T>();
        let mut pos =
            widen_blocks::<K, T>(bytes, dst, if head == 0 { BLOCK } else { head }, &widen16);
        // Fewer than 64 bytes left (else `pos` is at a block with a non-ASCII byte).
        if pos + BLOCK > len && pos < len && ascii_block::<K>(src.add(len - BLOCK)) {
            widen_block(src.add(len - BLOCK), dst.add(len - BLOCK), &widen16);
            pos = len;
        }
        out.set_len(base + pos);
        pos
    }
}

/// [`widen_ascii_blocks`] in whole 64-byte blocks from the start of `bytes`, with no
/// head to align the output and no last block over the ones before: for pieces of text
/// already past the caller's own ASCII prefix, where the code of the aligned form,
/// inlined into the conversion's loop, slowed that loop (3% on CJK text) for blocks
/// that are rarely ASCII.
///
/// # Safety
/// As for [`widen_ascii_blocks`].
#[inline(always)]
pub(super) unsafe fn widen_ascii_plain<K: Kernel16, T>(
    bytes: &[u8],
    out: &mut Vec<T>,
    widen16: impl Fn(*const u8, *mut T),
) -> usize {
    // At most one unit per byte.
    out.reserve(bytes.len());
    let base = out.len();
    // SAFETY: `out` has room for `bytes.len()` more units; `K`'s instruction set is
    // available and `widen16` as required (caller's contract).
    unsafe {
        let pos = widen_blocks::<K, T>(bytes, out.as_mut_ptr().add(base), 0, &widen16);
        out.set_len(base + pos);
        pos
    }
}

/// Widens the 64-byte blocks of `bytes` from `pos` on to units at the same offsets of
/// `dst`, up to the first block with a non-ASCII byte or the last whole block; returns
/// where it stopped.
///
/// # Safety
/// `K`'s instruction set must be available; `dst` writable for `bytes.len()` units;
/// `widen16` as in [`widen_ascii_blocks`].
#[inline(always)]
unsafe fn widen_blocks<K: Kernel16, T>(
    bytes: &[u8],
    dst: *mut T,
    mut pos: usize,
    widen16: &impl Fn(*const u8, *mut T),
) -> usize {
    let src = bytes.as_ptr();
    // SAFETY: loads read `pos..pos + 64 <= bytes.len()`, stores write units of the same
    // range (caller's contract).
    unsafe {
        while pos + BLOCK <= bytes.len() {
            if !ascii_block::<K>(src.add(pos)) {
                break;
            }
            widen_block(src.add(pos), dst.add(pos), widen16);
            pos += BLOCK;
        }
    }
    pos
}

/// Whether the 64 bytes at `block` are all ASCII: four loads, one test.
///
/// # Safety
/// `K`'s instruction set must be available; `block` readable for 64 bytes.
#[inline(always)]
unsafe fn ascii_block<K: Kernel16>(block: *const u8) -> bool {
    let mut high = 0;
    for i in 0..4 {
        // SAFETY: the caller's contract.
        high |= unsafe { K::high_bit_mask(K::load16(block.add(16 * i))) };
    }
    high == 0
}

/// Widens the 64 bytes at `src` to 64 units at `dst`, 16 per call of `widen16`.
///
/// # Safety
/// `src` readable for 64 bytes, `dst` writable for 64 units, `widen16` as in
/// [`widen_ascii_blocks`].
#[inline(always)]
unsafe fn widen_block<T>(src: *const u8, dst: *mut T, widen16: &impl Fn(*const u8, *mut T)) {
    for i in 0..4 {
        // SAFETY: the caller's contract: block `i` of 16 is within both.
        unsafe { widen16(src.add(16 * i), dst.add(16 * i)) };
    }
}

/// [`decode_utf32`] with any well-formed-chunk conversion `C`: leading all-ASCII blocks
/// are converted at once ([`ConvertValid::convert_ascii`]); from the first other block,
/// the input is validated by `V` in a chunk of `DECODE_CHUNK` (8 KiB) cut at a character
/// boundary, the chunk, if well-formed, converted by `C`, and so on; at the first chunk
/// with an error, the DFA decodes the well-formed prefix and locates the error.
///
/// # Safety
/// The instruction sets of `V` and `C` must be available.
#[inline(always)]
pub unsafe fn decode_utf32_by<V: Vector, C: ConvertValid>(
    bytes: &[u8],
    out: &mut Vec<u32>,
) -> Result<(), Utf8Error> {
    // SAFETY: the caller meets this function's `# Safety` contract, and `C` is only
    // given chunks `first_bad_block` found well-formed.
    unsafe {
        assert_vector_width::<V>();
        let len = bytes.len();
        let mut start = 0;
        while start < len {
            // ASCII blocks: converted as they are checked.
            start += C::convert_ascii(&bytes[start..], out);
            if start == len {
                break;
            }
            let end = dfa::chunk_end(bytes, start, DECODE_CHUNK);
            let chunk = &bytes[start..end];
            if first_bad_block::<V>(chunk).is_some() {
                // The scalar DFA decodes the well-formed prefix and locates the error;
                // `start` is a character boundary and everything before it is well-formed.
                return dfa::decode_utf32_from(bytes, start, out);
            }
            C::convert_valid(chunk, out);
            start = end;
        }
        Ok(())
    }
}

/// One stream of conversion: input `pos..end`, output cursor `written`, and the output
/// index below which its stores must stay (`out_end`).
struct Lane {
    pos: usize,
    end: usize,
    written: usize,
    out_end: usize,
}

impl Lane {
    /// Whether [`convert_block`] may run: a whole block and the byte after it are inside
    /// the lane, and the block's stores (at most 64 scalars plus 16 lanes of slack) stay
    /// below `out_end`.
    #[inline(always)]
    fn can_convert_block(&self) -> bool {
        self.pos + BLOCK < self.end && self.written + BLOCK + 16 <= self.out_end
    }
}

/// Steps per call of [`convert_block`]: each converts at most 12 bytes (a table step, or
/// a run of ASCII), so the last starts at most 48 bytes into the block.
const STEPS_PER_BLOCK: usize = 5;

/// The first 60 bits of a block's character-end mask ([`STEPS_PER_BLOCK`] steps of 12
/// bytes).
const THREE_BYTE_RUN_MASK: u64 = (1 << (12 * STEPS_PER_BLOCK)) - 1;

/// The character-end mask of 20 characters of 3 bytes: [`tables::THREE_BYTE_ENDS`] in
/// each of the [`STEPS_PER_BLOCK`] 12-bit windows.
const THREE_BYTE_RUN_ENDS: u64 = {
    let mut ends = 0;
    let mut i = 0;
    while i < STEPS_PER_BLOCK {
        ends |= (tables::THREE_BYTE_ENDS as u64) << (12 * i);
        i += 1;
    }
    ends
};

/// Converts the characters of the next [`STEPS_PER_BLOCK`] steps of `lane` (a whole
/// block if it is all ASCII) and advances it; `false` if the input is not well-formed
/// there (a mask no well-formed input gives), leaving the lane unchanged.
///
/// [`Kernel16::block_masks`] gives the block's high-bit and tail masks as `u64`, and the
/// character-end mask follows from the tail mask. Each step then reads its 12-bit end
/// mask with a shift, so the loop-carried dependency is only shift, mask, table load.
/// The step count is fixed rather than "until the block is used up": a loop exit that
/// depends on the text costs a misprediction per block.
///
/// # Safety
/// `lane.can_convert_block()`, `lane.end <= bytes.len()`, `dst` valid for writes of
/// `lane.out_end` scalars, and `lane.pos` a character boundary of well-formed input.
#[inline(always)]
unsafe fn convert_block<K: Kernel16, U: Unit>(
    bytes: &[u8],
    dst: *mut U::Out,
    lane: &mut Lane,
) -> bool {
    // SAFETY: the caller meets this function's `# Safety` contract; the
    // bounds of each pointer operation are justified where it occurs.
    unsafe {
        // SAFETY (all loads and stores below): `lane.pos + 64 < lane.end <= bytes.len()`;
        // loads start at most 48 bytes into the block (`STEPS_PER_BLOCK` steps of at most
        // 12 bytes) and read 16; stores start at `written <= lane.written + 48` (one
        // character per byte at most) and write at most 16 lanes, below `out_end`.
        let block = bytes.as_ptr().add(lane.pos);
        let out = dst.add(lane.written);
        let (high, tails) = K::block_masks(block);
        if high == 0 {
            for i in 0..4 {
                U::widen16::<K>(block.add(16 * i), out.add(16 * i));
            }
            lane.pos += BLOCK;
            lane.written += BLOCK;
            return true;
        }
        // Byte i ends a character iff byte i + 1 is not a tail.
        let next_is_tail = dfa::is_continuation(bytes[lane.pos + BLOCK]) as u64;
        let ends = !((tails >> 1) | (next_is_tail << 63));
        // A block that starts with 20 characters of 3 bytes (CJK prose): fixed steps,
        // no table loads and no dependency between them. Decided per block, not
        // per step: a per-step test mispredicts on text where runs of such characters
        // are short (words between spaces), and costs more than it saves there.
        if ends & THREE_BYTE_RUN_MASK == THREE_BYTE_RUN_ENDS {
            U::three_byte_run_store::<K>(block, out);
            lane.pos += 12 * STEPS_PER_BLOCK;
            lane.written += 4 * STEPS_PER_BLOCK;
            return true;
        }
        // The other blocks by table steps, ASCII included (six characters a step). A
        // step that widened a run of 4 or more ASCII bytes (up to 12 at once) was taken
        // or not from step to step with the text where words of ASCII and of other
        // scripts mix, a branch the predictor cannot learn; without it, mixed text
        // converts 8-17% faster (see `benches/README.md`). All-ASCII blocks are
        // still widened (above).
        let stepped = steps::<K, U>(block, out, ends);
        let Some((offset, written)) = stepped else {
            return false;
        };
        lane.pos += offset;
        lane.written += written;
        true
    }
}

/// The character-end mask of the 64 bytes at `pos` (bit i set iff byte `pos + i` ends
/// a character).
///
/// # Safety
/// `K`'s instruction set available; `pos + 64 < bytes.len()`.
#[inline(always)]
unsafe fn ends_at<K: Kernel16>(bytes: &[u8], pos: usize) -> u64 {
    // SAFETY: bytes `pos..pos + 64` are in `bytes` (caller's contract).
    let (_, tails) = unsafe { K::block_masks(bytes.as_ptr().add(pos)) };
    // Byte i ends a character iff byte i + 1 is not a tail.
    let next_is_tail = dfa::is_continuation(bytes[pos + BLOCK]) as u64;
    !((tails >> 1) | (next_is_tail << 63))
}

/// [`convert_block`] with the block's character-end mask given (`ends`, that at
/// `lane.pos`) rather than made from its bytes, and replaced by that at the lane's new
/// cursor. The mask of the 64 bytes after the block is made from the bytes before the
/// steps, at an address known when the block starts, and the next block's mask is the
/// two joined by a shift: the load, compare and `pmovmskb` of a block leave the chain
/// from one block's steps to the next's, which is then the steps' table loads and one
/// shift. Well-formed text at a character boundary is all ASCII exactly where every
/// byte ends a character, so the end mask alone also tells the ASCII blocks.
///
/// # Safety
/// As [`convert_block`], and `lane.pos + 128 < bytes.len()`; `ends` the character-end
/// mask of the 64 bytes at `lane.pos`.
#[inline(always)]
unsafe fn convert_block_ahead<K: Kernel16, U: Unit>(
    bytes: &[u8],
    dst: *mut U::Out,
    lane: &mut Lane,
    ends: &mut u64,
) -> bool {
    // SAFETY: the caller meets this function's `# Safety` contract; the
    // bounds of each pointer operation are justified where it occurs.
    unsafe {
        // SAFETY (all loads and stores below): as in `convert_block`; the mask ahead
        // reads bytes `lane.pos + 64..lane.pos + 129`, within `bytes`.
        let block = bytes.as_ptr().add(lane.pos);
        let out = dst.add(lane.written);
        let next = ends_at::<K>(bytes, lane.pos + BLOCK);
        if *ends == u64::MAX {
            for i in 0..4 {
                U::widen16::<K>(block.add(16 * i), out.add(16 * i));
            }
            lane.pos += BLOCK;
            lane.written += BLOCK;
            *ends = next;
            return true;
        }
        let (offset, written) = if *ends & THREE_BYTE_RUN_MASK == THREE_BYTE_RUN_ENDS {
            // As in `convert_block`.
            U::three_byte_run_store::<K>(block, out);
            (12 * STEPS_PER_BLOCK, 4 * STEPS_PER_BLOCK)
        } else {
            let Some(stepped) = steps::<K, U>(block, out, *ends) else {
                return false;
            };
            stepped
        };
        lane.pos += offset;
        lane.written += written;
        // The two masks joined from `offset` on: 20 to 60 bytes (five steps of 4 to 12
        // bytes, or a run of 60), so both shifts are below 64.
        *ends = (*ends >> offset) | (next << (BLOCK - offset));
        true
    }
}

/// The [`STEPS_PER_BLOCK`] steps of [`convert_block`] over the block at `block`, given
/// its character-end mask; returns the bytes and units converted, or `None` at a mask
/// well-formed input cannot give.
///
/// # Safety
/// As [`convert_block`]: 64 bytes readable at `block`, 80 scalars writable at `out`.
#[inline(always)]
unsafe fn steps<K: Kernel16, U: Unit>(
    block: *const u8,
    out: *mut U::Out,
    ends: u64,
) -> Option<(usize, usize)> {
    // SAFETY: loads start at most 48 bytes into the block (`STEPS_PER_BLOCK` steps of at
    // most 12 bytes) and read 16; stores start at `written <= 48` (one character per
    // byte at most) and write at most 16 lanes (caller's contract).
    unsafe {
        let mut offset = 0;
        let mut written = 0;
        // The end mask from the step's start on: shifted by each step's bytes rather
        // than by the sum so far, so that the chain from one step's table load to the
        // next is shift, mask, load, with the cursor's add beside it instead of in it.
        let mut ends = ends;
        // A fixed number of steps, each at most 12 bytes, so that every step starts at
        // most 48 bytes into the block: no exit branch that depends on the text.
        for _ in 0..STEPS_PER_BLOCK {
            let mask = (ends & 0xFFF) as usize;
            let consumed = tables::STEP_CONSUMED[mask] as usize;
            if consumed == 0 {
                return None;
            }
            ends >>= consumed;
            let entry = tables::STEP_INDEX[mask];
            let src = block.add(offset);
            if tables::is_short(entry) {
                let short = tables::step_id(entry) - SHORT_BASE as usize;
                U::short_store::<K>(src, short, out.add(written));
            } else {
                let step = &tables::STEPS[tables::step_id(entry)];
                // A 4-byte character's second unit, for `Pairs`.
                written += U::assemble_store::<K>(
                    K::shuffle(K::load16(src), &step.shuffle),
                    step,
                    out.add(written),
                );
            }
            offset += consumed;
            written += tables::step_chars(entry);
        }
        Some((offset, written))
    }
}

/// Converts well-formed `bytes` to scalar values appended to `out`, or to their UTF-16
/// code units (`U` = `u16` for `bytes` without 4-byte characters, [`super::units::Pairs`]
/// for any; see [`super::units`]).
///
/// The step loop of [`convert_block`] is latency-bound (each step's start depends on the
/// previous step's table load), so the input is split in two halves at a character
/// boundary, converted block by block in alternation: the two dependency chains are
/// independent and the CPU overlaps them. The second half's output starts where the
/// first half's would end if each of its bytes were a unit (`mid`: no half has more
/// units than bytes), and is moved down against the first half's once both are done.
/// The move is cheaper than counting the first half's units beforehand (a pass over
/// half the input, and on UTF-16 a second compare per vector for the 4-byte leads),
/// and leaves the first half's blocks to the vector code up to its last 64 bytes,
/// where an exact slot stopped them some 80 units before its end (about 150 bytes of
/// mixed text), leaving them to the scalar loop.
///
/// # Safety
/// `K`'s instruction set must be available; `bytes` well-formed UTF-8, and for `u16`
/// without 4-byte characters.
#[inline(always)]
pub(super) unsafe fn convert_valid<K: Kernel16, U: Unit>(bytes: &[u8], out: &mut Vec<U::Out>) {
    // SAFETY: the caller meets this function's `# Safety` contract; the
    // bounds of each pointer operation are justified where it occurs.
    unsafe {
        let len = bytes.len();
        // At most one unit per byte (two for four); stores stay below `base + len`
        // (see `Lane`).
        out.reserve(len);
        let base = out.len();
        // SAFETY: `reserve(len)` above makes `base + len` elements of capacity.
        let dst = out.as_mut_ptr().add(base);
        // Two lanes only pay for text with non-ASCII characters; ASCII conversion is
        // store-bound, and moving the second half's output would be a pass of its
        // own. The first 256 bytes decide.
        let sample = &bytes[..len.min(256)];
        let mut mid = if len >= 1024 && !sample.is_ascii() {
            len / 2
        } else {
            0
        };
        // Back to a character boundary (at most 3 tails in well-formed input).
        while mid > 0 && dfa::is_continuation(bytes[mid]) {
            mid -= 1;
        }
        let mut first = Lane {
            pos: 0,
            end: mid,
            written: 0,
            out_end: mid,
        };
        let mut second = Lane {
            pos: mid,
            end: len,
            written: mid,
            out_end: len,
        };
        // SAFETY (all `convert_block` calls): each is guarded by `can_convert_block`; both
        // lanes start at character boundaries and end within `bytes`; `dst` has `len`
        // elements, and the first lane's stores stay below `mid`, where the second
        // lane's output starts.
        let mut first_open = true;
        let mut second_open = true;
        // Both lanes with their masks made a block ahead (`convert_block_ahead`) while the
        // bytes after their next block are in `bytes`; then from the bytes, block by block.
        let ahead = |lane: &Lane| lane.can_convert_block() && lane.pos + 2 * BLOCK < len;
        if U::AHEAD && ahead(&first) && ahead(&second) {
            // SAFETY: both lanes' blocks are in `bytes` (`ahead`).
            let mut first_ends = ends_at::<K>(bytes, first.pos);
            let mut second_ends = ends_at::<K>(bytes, second.pos);
            let run = |ends: u64| ends & THREE_BYTE_RUN_MASK == THREE_BYTE_RUN_ENDS;
            // Text of runs of 3-byte characters (CJK prose) stays on the blocks made from
            // the bytes: there a block's length is known when it starts (a run, 60
            // bytes), so the chain the masks ahead shorten is not there, and their
            // shifts and loads were 5-10% of its time.
            if !run(first_ends) && !run(second_ends) {
                while first_open && second_open && ahead(&first) && ahead(&second) {
                    first_open =
                        convert_block_ahead::<K, U>(bytes, dst, &mut first, &mut first_ends);
                    second_open =
                        convert_block_ahead::<K, U>(bytes, dst, &mut second, &mut second_ends);
                }
            }
        }
        while first_open && second_open && first.can_convert_block() && second.can_convert_block() {
            first_open = convert_block::<K, U>(bytes, dst, &mut first);
            second_open = convert_block::<K, U>(bytes, dst, &mut second);
        }
        while second_open && second.can_convert_block() {
            second_open = convert_block::<K, U>(bytes, dst, &mut second);
        }
        // The rest of the first half, below `mid`.
        let mut first_units = first.written;
        let mut pos = first.pos;
        while pos < mid {
            let (scalar, len) = decode_valid_char(bytes, pos);
            // SAFETY: the half's units end at most at `mid`, one per byte at most.
            first_units += U::store_scalar(dst.add(first_units), scalar);
            pos += len;
        }
        // The last bytes of the second half, which start at a character boundary.
        let mut written = second.written;
        let mut pos = second.pos;
        while pos < len {
            let (scalar, len) = decode_valid_char(bytes, pos);
            // SAFETY: the units of the half's characters end at most at `len` (one per
            // byte, two for four), within the capacity reserved.
            written += U::store_scalar(dst.add(written), scalar);
            pos += len;
        }
        let second_units = written - mid;
        if first_units < mid {
            // SAFETY: both ranges are within the `len` elements reserved; `copy` allows
            // them to overlap.
            core::ptr::copy(dst.add(mid), dst.add(first_units), second_units);
        }
        // SAFETY: the first `first_units + second_units` elements are initialised: the
        // first half's by its lane and loop, the second half's moved down after them.
        out.set_len(base + first_units + second_units);
    }
}

/// The scalar value and length of the well-formed character at `bytes[pos]`.
#[inline(always)]
fn decode_valid_char(bytes: &[u8], pos: usize) -> (u32, usize) {
    let lead = bytes[pos];
    let len = match lead {
        0x00..=0x7F => return (lead as u32, 1),
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    };
    let mut scalar = (lead as u32) & (0x7F >> len);
    for &tail in &bytes[pos + 1..pos + len] {
        scalar = (scalar << 6) | (tail & 0x3F) as u32;
    }
    (scalar, len)
}
