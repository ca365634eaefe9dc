//! The scalar core: a shift-based DFA for the UTF-8 grammar.
//!
//! Every other part of [`crate::fast`] leans on this file. The SIMD backends only answer
//! "is this block well-formed?"; whenever the answer is no, the exact error position and
//! the maximal subpart come from here. It is also the portable fallback backend and the
//! code `cargo miri test` checks, so it contains no `unsafe` at all.
//!
//! # The automaton
//!
//! The grammar is RFC 3629 section 4, which is the same language as Unicode Table 3-7
//! ("Well-Formed UTF-8 Byte Sequences"):
//!
//! ```text
//! UTF8-octets = *( UTF8-char )
//! UTF8-char   = UTF8-1 / UTF8-2 / UTF8-3 / UTF8-4
//! UTF8-1      = %x00-7F
//! UTF8-2      = %xC2-DF UTF8-tail
//! UTF8-3      = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
//!               %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
//! UTF8-4      = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
//!               %xF4 %x80-8F 2( UTF8-tail )
//! UTF8-tail   = %x80-BF
//! ```
//!
//! Its minimal DFA has nine states: [`ACCEPT`] (between characters), [`REJECT`]
//! (absorbing), and seven "inside a character" states, each naming what the next byte
//! must be. Every non-reject state is therefore a *proper prefix of some well-formed
//! UTF8-char*, which is exactly what Unicode D93b ("maximal subpart") is about: the
//! maximal subpart at an error is the run of bytes consumed since the last `ACCEPT`, or
//! the failing byte alone when that run is empty.
//!
//! # Why "shift-based"
//!
//! A state is a bit offset (a multiple of 6) into a 64-bit row. `ROWS[byte]` packs, for
//! every state `s`, the next state at bits `s..s + 6`, so one transition is one load
//! (independent of the state) and one shift: `next = ROWS[byte] >> (state & 63)`. The
//! state-to-state dependency is a single-cycle shift, which is what makes a byte-at-a-
//! time scalar loop fast. `REJECT` is offset 0 and every row has zeros there, so it is
//! absorbing; transitions not listed in `TRANSITIONS` default to it.

use super::Utf8Error;

/// A DFA state: a bit offset into a row of [`ROWS`]. Only the low 6 bits are meaningful.
pub type State = u64;

/// Absorbing error state: the bytes seen cannot be extended to well-formed UTF-8.
pub const REJECT: State = 0;
/// Between characters: everything consumed so far is well-formed.
pub const ACCEPT: State = 6;
/// One `UTF8-tail` (80..BF) still needed.
pub const TAIL1: State = 12;
/// Two `UTF8-tail` bytes still needed.
pub const TAIL2: State = 18;
/// Three `UTF8-tail` bytes still needed (after F1..F3).
pub const TAIL3: State = 24;
/// After `E0`: the next byte must be A0..BF (excludes overlong 3-byte forms).
pub const AFTER_E0: State = 30;
/// After `ED`: the next byte must be 80..9F (excludes the surrogates D800..DFFF).
pub const AFTER_ED: State = 36;
/// After `F0`: the next byte must be 90..BF (excludes overlong 4-byte forms).
pub const AFTER_F0: State = 42;
/// After `F4`: the next byte must be 80..8F (excludes values above U+10FFFF).
pub const AFTER_F4: State = 48;

/// One row of the transition table: from `state`, bytes `first..=last` lead to `next`.
struct Transition {
    state: State,
    first: u8,
    last: u8,
    next: State,
}

const fn t(state: State, first: u8, last: u8, next: State) -> Transition {
    Transition {
        state,
        first,
        last,
        next,
    }
}

/// The automaton, one line per grammar alternative. Unlisted transitions go to `REJECT`.
const TRANSITIONS: [Transition; 16] = [
    // UTF8-1      = %x00-7F
    t(ACCEPT, 0x00, 0x7F, ACCEPT),
    // UTF8-2      = %xC2-DF UTF8-tail
    t(ACCEPT, 0xC2, 0xDF, TAIL1),
    // UTF8-3      = %xE0 %xA0-BF UTF8-tail
    t(ACCEPT, 0xE0, 0xE0, AFTER_E0),
    t(AFTER_E0, 0xA0, 0xBF, TAIL1),
    //             / %xE1-EC 2( UTF8-tail )
    t(ACCEPT, 0xE1, 0xEC, TAIL2),
    //             / %xED %x80-9F UTF8-tail
    t(ACCEPT, 0xED, 0xED, AFTER_ED),
    t(AFTER_ED, 0x80, 0x9F, TAIL1),
    //             / %xEE-EF 2( UTF8-tail )
    t(ACCEPT, 0xEE, 0xEF, TAIL2),
    // UTF8-4      = %xF0 %x90-BF 2( UTF8-tail )
    t(ACCEPT, 0xF0, 0xF0, AFTER_F0),
    t(AFTER_F0, 0x90, 0xBF, TAIL2),
    //             / %xF1-F3 3( UTF8-tail )
    t(ACCEPT, 0xF1, 0xF3, TAIL3),
    //             / %xF4 %x80-8F 2( UTF8-tail )
    t(ACCEPT, 0xF4, 0xF4, AFTER_F4),
    t(AFTER_F4, 0x80, 0x8F, TAIL2),
    // UTF8-tail   = %x80-BF, counted down by the TAILn states
    t(TAIL3, 0x80, 0xBF, TAIL2),
    t(TAIL2, 0x80, 0xBF, TAIL1),
    t(TAIL1, 0x80, 0xBF, ACCEPT),
];

const fn build_rows() -> [u64; 256] {
    let mut rows = [0u64; 256];
    let mut i = 0;
    while i < TRANSITIONS.len() {
        let tr = &TRANSITIONS[i];
        let mut byte = tr.first as usize;
        while byte <= tr.last as usize {
            rows[byte] |= tr.next << tr.state;
            byte += 1;
        }
        i += 1;
    }
    rows
}

/// `ROWS[byte] >> state & 63` is the state after reading `byte` in `state`.
pub static ROWS: [u64; 256] = build_rows();

/// One transition. The result's low 6 bits are the next state; higher bits are noise
/// that the next shift (which only looks at `state & 63`) ignores.
#[inline(always)]
pub fn step(state: State, byte: u8) -> State {
    ROWS[byte as usize] >> (state & 63)
}

/// Whether `byte` is a `UTF8-tail` (10xxxxxx).
#[inline(always)]
pub fn is_continuation(byte: u8) -> bool {
    (byte as i8) < -64
}

/// The end of the chunk of `bytes` that starts at `start`: `size` bytes on, or the end
/// of input, cut at a character boundary so that each chunk is validated on its own:
/// back over at most 3 tails. (If 4 tails precede the end, the input is ill-formed
/// there and the next chunk's validation reports it.)
#[inline(always)]
pub(crate) fn chunk_end(bytes: &[u8], start: usize, size: usize) -> usize {
    let len = bytes.len();
    let end = (start + size).min(len);
    if end == len {
        return end;
    }
    let mut cut = end;
    while cut > end - 3 && is_continuation(bytes[cut]) {
        cut -= 1;
    }
    if is_continuation(bytes[cut]) {
        end
    } else {
        cut
    }
}

/// Length of the maximal subpart (Unicode D93b) starting at `bytes[0]`, given that no
/// well-formed character starts there: the longest prefix of some well-formed
/// character, or 1 if there is none. Returns `None` when the whole of `bytes` is such a
/// prefix, i.e. the character is incomplete at end of input (std's `error_len() ==
/// None`).
pub fn maximal_subpart_len(bytes: &[u8]) -> Option<usize> {
    let mut state = ACCEPT;
    for (consumed, &byte) in bytes.iter().enumerate() {
        state = step(state, byte);
        match state & 63 {
            REJECT => return Some(consumed.max(1)),
            // A complete character: the caller promised there is none here. Treat the
            // character as its own unit so that a misuse cannot loop forever.
            ACCEPT => return Some(consumed + 1),
            _ => {}
        }
    }
    if bytes.is_empty() {
        Some(0)
    } else {
        None
    }
}

/// A character boundary at or before `pos`, for restarting the DFA after a SIMD block
/// reported an error: the last non-continuation byte among the 3 bytes before `pos`, or
/// `pos` itself if there is none. Requires `bytes[..pos]` to be well-formed except
/// possibly for an incomplete character at its end; then every non-continuation byte in
/// it starts a character, and any character that overlaps `pos` starts at or after the
/// returned offset.
#[inline]
pub fn boundary_before(bytes: &[u8], pos: usize) -> usize {
    let lowest = pos.saturating_sub(3);
    let mut candidate = pos;
    while candidate > lowest {
        candidate -= 1;
        if !is_continuation(bytes[candidate]) {
            return candidate;
        }
    }
    pos
}

/// The error for `bytes`, given that `bytes[..start]` is well-formed and no well-formed
/// character starts at `start`.
#[cold]
pub fn error_at(bytes: &[u8], start: usize) -> Utf8Error {
    let error_len = maximal_subpart_len(&bytes[start..]);
    Utf8Error::new(start, error_len)
}

/// Number of leading ASCII bytes of `bytes`, a word at a time.
#[inline]
pub fn ascii_prefix_len(bytes: &[u8]) -> usize {
    const WORD: usize = core::mem::size_of::<u64>();
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while i + 2 * WORD <= bytes.len() {
        let a = u64::from_le_bytes(bytes[i..i + WORD].try_into().unwrap());
        let b = u64::from_le_bytes(bytes[i + WORD..i + 2 * WORD].try_into().unwrap());
        if (a | b) & HIGH_BITS != 0 {
            break;
        }
        i += 2 * WORD;
    }
    while i < bytes.len() && bytes[i] < 0x80 {
        i += 1;
    }
    i
}

/// Validates `bytes` with the DFA alone; the error position and length equal std's.
pub fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    validate_from(bytes, 0)
}

/// Validates `bytes[start..]`, where `start` is a character boundary and `bytes[..start]`
/// is known to be well-formed; offsets in the error are relative to `bytes`.
pub fn validate_from(bytes: &[u8], start: usize) -> Result<(), Utf8Error> {
    let mut pos = start;
    let len = bytes.len();
    // Invariant at the top of the loop: `bytes[..pos]` is well-formed.
    while pos < len {
        if bytes[pos] < 0x80 {
            pos += ascii_prefix_len(&bytes[pos..]);
            continue;
        }
        let char_start = pos;
        let mut state = ACCEPT;
        loop {
            state = step(state, bytes[pos]);
            pos += 1;
            let current = state & 63;
            if current == ACCEPT {
                break;
            }
            if current == REJECT {
                return Err(error_at(bytes, char_start));
            }
            if pos == len {
                return Err(Utf8Error::new(char_start, None));
            }
        }
    }
    Ok(())
}

/// Payload bits of a lead byte: `0xxxxxxx`, `110xxxxx`, `1110xxxx` or `11110xxx`.
#[inline(always)]
fn lead_payload(byte: u8) -> u32 {
    byte as u32 & (0x7F_u32 >> byte.leading_ones())
}

/// Decodes `bytes` to scalar values appended to `out`; on error, appends those of the
/// well-formed prefix and returns the error (std's shape).
pub fn decode_utf32(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    decode_utf32_from(bytes, 0, out)
}

/// [`decode_utf32`] of `bytes[start..]`, with `start` a character boundary; error offsets
/// are relative to `bytes`.
pub fn decode_utf32_from(bytes: &[u8], start: usize, out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    let mut pos = start;
    let len = bytes.len();
    while pos < len {
        let byte = bytes[pos];
        if byte < 0x80 {
            out.push(byte as u32);
            pos += 1;
            continue;
        }
        let char_start = pos;
        let mut state = step(ACCEPT, byte);
        let mut scalar = lead_payload(byte);
        pos += 1;
        loop {
            let current = state & 63;
            if current == ACCEPT {
                out.push(scalar);
                break;
            }
            if current == REJECT {
                return Err(error_at(bytes, char_start));
            }
            if pos == len {
                return Err(Utf8Error::new(char_start, None));
            }
            let byte = bytes[pos];
            state = step(state, byte);
            scalar = (scalar << 6) | (byte & 0x3F) as u32;
            pos += 1;
        }
    }
    Ok(())
}

/// One-shot lossy decoding with the DFA: one U+FFFD per maximal subpart.
pub fn decode_lossy_into(bytes: &[u8], out: &mut String) {
    let mut pos = 0;
    while pos < bytes.len() {
        match validate_from(bytes, pos) {
            Ok(()) => {
                push_valid(out, &bytes[pos..]);
                return;
            }
            Err(error) => {
                push_valid(out, &bytes[pos..error.valid_up_to()]);
                out.push(char::REPLACEMENT_CHARACTER);
                pos = match error.error_len() {
                    Some(len) => error.valid_up_to() + len,
                    None => bytes.len(),
                };
            }
        }
    }
}

/// Appends bytes already proven well-formed by the DFA.
fn push_valid(out: &mut String, valid: &[u8]) {
    // The DFA has validated `valid`; `from_utf8` re-checking it keeps this file free of
    // `unsafe` (this is the fallback path; the fast backends append without re-checking).
    match core::str::from_utf8(valid) {
        Ok(text) => out.push_str(text),
        Err(_) => unreachable!("the DFA accepted bytes that std rejects"),
    }
}

#[cfg(test)]
mod tests {
    //! Small, exhaustive-where-cheap checks of the scalar core against Rust std. These
    //! are the tests `cargo miri test fast::dfa` runs, so inputs stay small.
    use super::*;

    fn std_result(bytes: &[u8]) -> Result<(), (usize, Option<usize>)> {
        core::str::from_utf8(bytes)
            .map(|_| ())
            .map_err(|e| (e.valid_up_to(), e.error_len()))
    }

    fn ours(bytes: &[u8]) -> Result<(), (usize, Option<usize>)> {
        validate(bytes).map_err(|e| (e.valid_up_to(), e.error_len()))
    }

    /// Bytes that exercise every DFA row class: boundaries of each range in Table 3-7.
    const INTERESTING: [u8; 24] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
    ];

    #[test]
    fn table_3_7_rows() {
        // Each row of Table 3-7 at its low and high end is accepted in full ...
        let valid: [&[u8]; 9] = [
            &[0x00],
            &[0xC2, 0x80],
            &[0xE0, 0xA0, 0x80],
            &[0xE1, 0x80, 0x80],
            &[0xED, 0x9F, 0xBF],
            &[0xEE, 0x80, 0x80],
            &[0xF0, 0x90, 0x80, 0x80],
            &[0xF1, 0x80, 0x80, 0x80],
            &[0xF4, 0x8F, 0xBF, 0xBF],
        ];
        for bytes in valid {
            assert_eq!(ours(bytes), Ok(()), "{bytes:02X?}");
        }
        // ... and just outside its second-byte range is rejected with a 1-byte unit.
        let invalid: [&[u8]; 5] = [
            &[0xC1, 0xBF],
            &[0xE0, 0x9F, 0x80],
            &[0xED, 0xA0, 0x80],
            &[0xF0, 0x8F, 0x80, 0x80],
            &[0xF4, 0x90, 0x80, 0x80],
        ];
        for bytes in invalid {
            assert_eq!(ours(bytes), Err((0, Some(1))), "{bytes:02X?}");
        }
    }

    #[test]
    fn short_inputs_match_std() {
        let mut buf = Vec::new();
        for &a in &INTERESTING {
            for &b in &INTERESTING {
                for &c in &INTERESTING {
                    for len in 1..=3 {
                        buf.clear();
                        buf.extend_from_slice(&[a, b, c][..len]);
                        assert_eq!(ours(&buf), std_result(&buf), "{buf:02X?}");
                    }
                }
            }
        }
    }

    #[test]
    fn decode_and_lossy_match_std() {
        let cases: [&[u8]; 6] = [
            b"a\xF1\x80\x80\xE1\x80\xC2b\x80c\x80\xBFd",
            b"\xC0\xAF\xE0\x80\xBF\xF0\x81\x82A",
            b"\xED\xA0\x80\xED\xBF\xBF\xED\xAFA",
            b"\xF4\x91\x92\x93\xFFA\x80\xBFB",
            b"\xE1\x80\xE2\xF0\x91\x92\xF1\xBFA",
            "h\u{e9}llo \u{4e16}\u{754c} \u{1F600}".as_bytes(),
        ];
        for bytes in cases {
            let mut lossy = String::new();
            decode_lossy_into(bytes, &mut lossy);
            assert_eq!(lossy, String::from_utf8_lossy(bytes), "{bytes:02X?}");
            let mut scalars = Vec::new();
            let result = decode_utf32(bytes, &mut scalars);
            assert_eq!(
                result.map_err(|e| (e.valid_up_to(), e.error_len())),
                std_result(bytes)
            );
            let prefix_len = core::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
            let expected: Vec<u32> = core::str::from_utf8(&bytes[..prefix_len])
                .unwrap()
                .chars()
                .map(u32::from)
                .collect();
            assert_eq!(scalars, expected);
        }
    }

    #[test]
    fn reject_is_absorbing_and_accept_is_ascii_only() {
        for byte in 0..=255u8 {
            assert_eq!(step(REJECT, byte) & 63, REJECT);
            assert_eq!(step(ACCEPT, byte) & 63 == ACCEPT, byte < 0x80);
        }
    }
}
