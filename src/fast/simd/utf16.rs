//! UTF-8 to UTF-16 over the SIMD registers: validation chunk by chunk with the SIMD
//! detector, and a conversion of each chunk known to be well-formed straight to code
//! units ([`ConvertValid16`]). Leading ASCII blocks are widened as they are checked.
//! Errors are located by the DFA, never here.
//!
//! Unicode §3.9, D91: code points U+0000..U+D7FF and U+E000..U+FFFF are one code unit
//! of the same value, U+10000..U+10FFFF a surrogate pair (Table 3-5). A character of n
//! bytes is therefore one code unit, but for n = 4, which is two: the output never has
//! more code units than the input has bytes, which every store below relies on.
//!
//! Two conversions implement [`ConvertValid16`]: the AVX-512 VBMI2 kernel
//! (`avx512_utf16`), which narrows its scalar values in registers, and
//! [`Stepped<K>`] for the 16-byte kernels (SSE4.1, AVX2, NEON): the kernel of
//! [`super::utf32`], pieces of [`PIECE`] bytes at a time, storing code units itself
//! (`super::units`): in a piece with 4-byte characters, each table step turns the
//! values of its lanes above U+FFFF into surrogate pairs in registers and compacts the
//! units ([`Kernel16::assemble_store_pairs`]), with no branch on which lanes; in a piece
//! without, the simpler stores of one unit per lane. Its ASCII blocks are widened
//! straight to code units ([`Kernel16::widen16_to_u16`]).

use core::marker::PhantomData;

use super::units::Pairs;
use super::utf32::{convert_valid, widen_ascii_blocks, widen_ascii_plain};
use super::validate::{first_bad_block, locate_error};
use super::vector::{assert_vector_width, Kernel16, Vector};
use crate::fast::dfa::chunk_end;
use crate::fast::Utf8Error;

/// Input bytes validated and converted per step of [`decode_utf16_by`]: large enough to
/// amortise the validation call, small enough to stay in L1 between the two passes.
const DECODE_CHUNK: usize = 8 * 1024;

/// Most bytes [`Stepped`] converts per call of the kernel, whose two lanes end in
/// scalar code once per call (with 2 KiB pieces, a tenth of the time on 2-byte text);
/// the chunk's size, so one piece per chunk.
pub const PIECE: usize = 8 * 1024;

/// A conversion of well-formed UTF-8 to UTF-16, plugged into [`decode_utf16_by`] and
/// lossy decoding. A trait rather than a closure so that the conversion is inlined into,
/// and compiled with the target features of, the backend's `#[target_feature]` function.
pub trait ConvertValid16 {
    /// Appends the UTF-16 encoding of `bytes` to `out`. `scratch` is a buffer the
    /// conversion may use (and leave in any state), reused from call to call.
    ///
    /// # Safety
    /// `bytes` must be well-formed UTF-8, and the implementation's instruction set
    /// available.
    unsafe fn convert_valid(bytes: &[u8], out: &mut Vec<u16>, scratch: &mut Vec<u32>);
    /// Appends the code units of a prefix of `bytes` that is all ASCII (any bytes: an
    /// ASCII prefix is well-formed whatever follows it), in whole 64-byte blocks (the
    /// first block may be shortened to align the output, and fewer than 64 bytes that
    /// end `bytes` widened over the units before them), and returns its length.
    ///
    /// # Safety
    /// The implementation's instruction set must be available.
    unsafe fn convert_ascii(bytes: &[u8], out: &mut Vec<u16>) -> usize;
}

/// Appends the UTF-16 encoding of `bytes` to `out`; on error, that of the well-formed
/// prefix, and returns the error (std's shape). Leading all-ASCII blocks are converted
/// at once ([`ConvertValid16::convert_ascii`]); from the first other block, the input is
/// validated by `V` in a chunk of `DECODE_CHUNK` (8 KiB) cut at a character boundary,
/// the chunk, if well-formed, converted by `C`, and so on; at the first chunk with an
/// error, the DFA locates it, starting a few bytes before the first byte `V` flags, and
/// `C` converts the well-formed prefix. `scratch` is `C`'s buffer.
///
/// # Safety
/// The instruction sets of `V` and `C` must be available.
#[inline(always)]
pub unsafe fn decode_utf16_by<V: Vector, C: ConvertValid16>(
    bytes: &[u8],
    out: &mut Vec<u16>,
    scratch: &mut Vec<u32>,
) -> Result<(), Utf8Error> {
    assert_vector_width::<V>();
    // SAFETY: the caller meets this function's `# Safety` contract; `FirstBadBlock`
    // agrees with std, as `convert_runs` requires.
    unsafe {
        convert_runs::<C, _>(
            bytes,
            out,
            scratch,
            DECODE_CHUNK,
            FirstBadBlock::<V>(PhantomData),
        )
    }
}

/// Where the first error of a chunk is, for [`convert_runs`]. A trait rather than a
/// closure: a closure is compiled without the target features of the backend function
/// it is written in, so a closure the compiler does not inline runs its SIMD
/// intrinsics as calls (the AVX2 strict decoder's did, at a twentieth of its speed).
pub(super) trait FindError {
    /// Whether `bytes[start..end]` is well-formed (`None`) or else std's result for
    /// `bytes[..]` (`Some`), given that `bytes[..start]` is well-formed.
    ///
    /// # Safety
    /// The implementation's instruction set must be available.
    unsafe fn find(&self, bytes: &[u8], start: usize, end: usize) -> Option<Result<(), Utf8Error>>;
}

/// [`FindError`] of the strict decoder: `V`'s validation of the chunk, and at a flagged
/// block, the error located from a few bytes before it.
struct FirstBadBlock<V>(PhantomData<V>);

impl<V: Vector> FindError for FirstBadBlock<V> {
    #[inline(always)]
    unsafe fn find(&self, bytes: &[u8], start: usize, end: usize) -> Option<Result<(), Utf8Error>> {
        // SAFETY: `V`'s instruction set is available (caller's contract).
        unsafe {
            let block = first_bad_block::<V>(&bytes[start..end])?;
            // `start` is a character boundary and everything before it is
            // well-formed: the error in the rest, moved by `start`, is std's.
            Some(
                locate_error::<V>(&bytes[start..], block).map_err(|error| {
                    Utf8Error::new(start + error.valid_up_to(), error.error_len())
                }),
            )
        }
    }
}

/// The chunk loop of UTF-8 to UTF-16 conversion, shared by the strict decoder and lossy
/// decoding's step: leading all-ASCII blocks converted at once, then chunks of `chunk`
/// bytes cut at a character boundary, each checked by `finder` ([`FindError::find`]).
/// A well-formed chunk is converted by `C`; at an error, the well-formed prefix before
/// it.
///
/// # Safety
/// The instruction sets of `C` and `F` must be available, and `finder` must agree with
/// std.
#[inline(always)]
pub(super) unsafe fn convert_runs<C: ConvertValid16, F: FindError>(
    bytes: &[u8],
    out: &mut Vec<u16>,
    scratch: &mut Vec<u32>,
    chunk: usize,
    finder: F,
) -> Result<(), Utf8Error> {
    let len = bytes.len();
    // At most one code unit per byte (see the module's documentation).
    out.reserve(len);
    let mut start = 0;
    // SAFETY: the caller meets this function's `# Safety` contract, and `C` is only
    // given chunks `finder` found well-formed, or the prefix it found well-formed.
    unsafe {
        while start < len {
            // ASCII blocks: converted as they are checked.
            start += C::convert_ascii(&bytes[start..], out);
            if start == len {
                break;
            }
            let end = chunk_end(bytes, start, chunk);
            if let Some(result) = finder.find(bytes, start, end) {
                let valid = result.map_or_else(|error| error.valid_up_to(), |()| len);
                C::convert_valid(&bytes[start..valid], out, scratch);
                return result;
            }
            C::convert_valid(&bytes[start..end], out, scratch);
            start = end;
        }
    }
    Ok(())
}

/// [`ConvertValid16`] by a 16-byte kernel `K`, a piece of at most [`PIECE`] bytes at a
/// time, code units stored by the kernel: with surrogate pairs
/// (`Pairs`) where the piece has a 4-byte character, else one unit per
/// lane (`u16`). `scratch` is not used.
pub struct Stepped<K>(core::marker::PhantomData<K>);

impl<K: Kernel16> ConvertValid16 for Stepped<K> {
    #[inline(always)]
    unsafe fn convert_valid(bytes: &[u8], out: &mut Vec<u16>, _scratch: &mut Vec<u32>) {
        let len = bytes.len();
        out.reserve(len);
        let mut start = 0;
        // SAFETY: `K`'s instruction set is available and `bytes` well-formed (caller's
        // contract); each piece ends at a character boundary, so it is well-formed too.
        unsafe {
            while start < len {
                start += widen_ascii_plain::<K, u16>(&bytes[start..], out, |src, dst| {
                    K::widen16_to_u16(src, dst)
                });
                if start == len {
                    break;
                }
                let end = chunk_end(bytes, start, PIECE);
                let piece = &bytes[start..end];
                // Lead bytes F0..F4 start the only characters with two code units; a
                // piece without them is converted by the simpler stores of `u16` (the
                // maximum of its bytes, a loop the compiler vectorises).
                if piece.iter().fold(0, |max: u8, &byte| max.max(byte)) < 0xF0 {
                    convert_valid::<K, u16>(piece, out);
                } else {
                    convert_valid::<K, Pairs>(piece, out);
                }
                start = end;
            }
        }
    }

    #[inline(always)]
    unsafe fn convert_ascii(bytes: &[u8], out: &mut Vec<u16>) -> usize {
        // SAFETY: `K`'s instruction set is available (caller's contract), and
        // `widen16_to_u16` writes the 16 units `widen_ascii_blocks` has room for.
        unsafe { widen_ascii_blocks::<K, u16>(bytes, out, |src, dst| K::widen16_to_u16(src, dst)) }
    }
}
