//! The planted mechanisms: each [`Bug`] is one way a real decoder departs from RFC 3629,
//! documented with the text it breaks. [`super::walker`] implements them on top of a
//! correct walker; [`super::catalogue`] combines them into decoders.
//!
//! The texts quoted, once here so that each variant can name them:
//!
//! - RFC 3629 §3: "The octet values C0, C1, F5 to FF never appear"; "Implementations of
//!   the decoding algorithm above MUST protect against decoding invalid sequences"; "The
//!   definition of UTF-8 prohibits encoding character numbers between U+D800 and U+DFFF".
//! - RFC 3629 §4, the syntax of a character: `UTF8-2 = %xC2-DF UTF8-tail`,
//!   `UTF8-3 = %xE0 %xA0-BF UTF8-tail / ...`, `UTF8-tail = %x80-BF`.
//! - Unicode §3.9, C10: a process "shall treat ill-formed code unit sequences as an error
//!   condition and shall not interpret such sequences as characters".
//! - Unicode §3.9, D93b and "U+FFFD Substitution of Maximal Subparts": one U+FFFD per
//!   maximal subpart, the longest prefix of a well-formed sequence (or one byte).
//! - Unicode §23.7 and C2: noncharacters "are valid in UTFs and must be properly
//!   converted".

/// One planted mechanism. Variants that accept ill-formed bytes say which unit they
/// accept and what they decode it to; the others say which field they change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Accepts encoded surrogates `ED A0..BF 80..BF` as the surrogate code point (WTF-8).
    /// Breaks RFC 3629 §3 (surrogates prohibited) and §4 (`%xED %x80-9F UTF8-tail`).
    AcceptsSurrogates,
    /// Accepts `C0`/`C1` two-byte overlongs as their value (Modified UTF-8's `C0 80`).
    /// Breaks RFC 3629 §3: "C0, C1 ... never appear".
    AcceptsOverlong2,
    /// Accepts `E0 80..9F xx` three-byte overlongs. Breaks §4: `%xE0 %xA0-BF UTF8-tail`.
    AcceptsOverlong3,
    /// Accepts `F4 90..BF xx xx` (above U+10FFFF) as its value; in the lenient walker
    /// (decoders with a bit-decoding mechanism below) also `F5..F7`. Breaks §4:
    /// `%xF4 %x80-8F 2( UTF8-tail )` and §3 "F5 to FF never appear".
    AcceptsAboveMax,
    /// Accepts the RFC 2279 5-byte form `F8..FB` + 4 continuation bytes. Breaks §3.
    AcceptsFiveByte,
    /// Treats U+0000 as the end of the input (a C string). Breaks C10: the whole input
    /// is to be interpreted.
    StopsAtNul,
    /// Emits a UTF-16 surrogate pair for each supplementary character. Breaks D92: the
    /// decoded scalar is the code point, not its UTF-16 code units.
    Utf16Pairs,
    /// Rejects the 66 noncharacters as ill-formed. Breaks C2 (§23.7).
    RejectsNoncharacters,
    /// On ill-formed input, decodes the whole input as Latin-1 instead. Breaks C10.
    Latin1Fallback,
    /// Drops a leading U+FEFF (WHATWG `decode`'s BOM sniffing, as a decoder).
    StripsBom,
    /// Counts `valid_up_to` after a leading BOM (CPython's `utf-8-sig`).
    OffsetAfterBom,
    /// Counts `valid_up_to` in characters instead of bytes.
    OffsetInCharacters,
    /// `valid_up_to` one too large when the first error is at byte 64 or later.
    OffByOnePast64,
    /// One U+FFFD per ill-formed byte (a known policy, not maximal subparts).
    PerBytePolicy,
    /// One U+FFFD per run of ill-formed bytes (a known policy).
    PerRunPolicy,
    /// One U+FFFD per lead-byte-sized sequence (a known policy).
    PerLeadSizedPolicy,
    /// Consumes the well-formed character after a stray continuation byte (Perl lax).
    /// Breaks C10 and the maximal-subpart rule: an error never covers a character.
    SwallowsAfterStray,
    /// `error_len` of a sequence cut by another byte counts that byte too (D93b).
    ErrorLenTakesInterrupter,
    /// A sequence cut by the end of input is reported with a length, not as incomplete.
    ErrorLenEndAsInvalid,
    /// In inputs shorter than 16 bytes (a scalar tail path), accepts `C0 80` as U+0000.
    ShortTailAcceptsC080,
    /// Rejects a multi-byte character that straddles a 32-byte block boundary.
    RejectsAcross32,
    /// Replaces a well-formed U+00E9 (`C3 A9`) by U+0065: a wrong table entry.
    MisdecodesE9,

    /// Never reports an error: `valid` is always true and only the scalars show what
    /// happened (a lossy-only API: `Buffer.toString`, a JavaScript `decode` that returns a
    /// string). Breaks C10's "error condition": the caller cannot tell.
    NeverReports,
    /// After a lead byte, takes the next bytes as its continuation bytes whatever they
    /// are, keeping their low 6 bits: `C2 41` is U+0081 and the `A` is lost. Breaks §4,
    /// `UTF8-tail = %x80-BF`.
    ContinuationUnchecked,
    /// A sequence cut by the end of input is decoded as if the missing bytes had a zero
    /// payload (a read past the buffer: `bytes[i++] & 0x3F` of `undefined` is 0). Breaks
    /// §4: every `UTF8-tail` must be present.
    TruncatedEndReadsZero,
    /// `F8..FF` are taken as 4-byte leads (a `b >= 0xF0` test). Breaks §3: "F5 to FF never
    /// appear".
    HighLeadsAsFour,
    /// A stray continuation byte `80..BF` is taken as a 3-byte lead (the `else` branch of
    /// a lead test that checks only `C0..DF` and `F0..`). Breaks §4: a character starts
    /// with `UTF8-1` or a lead byte, never with `UTF8-tail`.
    ContinuationAsLead3,
    /// A stray continuation byte is decoded as a 1-byte character of its low 6 bits (a
    /// lead-length count of 1 taken as "0 more bytes"): `80` is U+0000. Breaks §4.
    StrayAsOneByte,
    /// An invalid lead byte `F5..FF` is accepted as a 1-byte character of its own value.
    /// Breaks §3: "F5 to FF never appear".
    AcceptsInvalidLead,
    /// No shortest-form check at all: 2-, 3- and 4-byte overlongs (`C0 80`, `E0 80 80`,
    /// `F0 80 80 80`) are decoded to their value. Breaks §3 and §4 (`%xC2-DF`,
    /// `%xE0 %xA0-BF`, `%xF0 %x90-BF`).
    AcceptsOverlongAll,
    /// Accepts `F0 80..8F xx xx` four-byte overlongs. Breaks §4: `%xF0 %x90-BF`.
    AcceptsOverlong4,
    /// A value above U+10FFFF is emitted as a UTF-16 pair computed without a range check:
    /// `D800 + ((v - 0x10000) >> 10)`, `DC00 + (v & 0x3FF)`, two lone surrogates.
    /// Breaks §3 (F4 90.., F5..F7 never appear) and D92.
    AboveMaxAsPairs,
    /// A value above U+10FFFF wraps: the pair is computed with `& 0x3FF` masks, so the
    /// decoder returns `0x10000 + ((v - 0x10000) & 0xFFFFF)`, a well-formed but wrong
    /// character. Breaks §3.
    AboveMaxWraps,
    /// An ill-formed unit is emitted byte by byte as each byte's own value (Latin-1),
    /// instead of U+FFFD. Breaks C10: ill-formed bytes are not interpreted as characters.
    InvalidByteAsLatin1,
    /// An ill-formed byte `b` is emitted as the lone surrogate `U+DC00 + b` (Python's
    /// `surrogateescape`, PEP 383): a documented policy, not maximal subparts.
    SurrogateEscape,
    /// An ill-formed unit is dropped with no U+FFFD (Python's `errors='ignore'`, iconv
    /// `//IGNORE`): `80 41` decodes to `A`. A documented policy that C10 permits only with
    /// an error report.
    IgnoresErrors,
    /// One U+FFFD per lead-sized unit, where only the lead bytes RFC 3629 allows
    /// (`C2..F4`) announce a length; `C0`, `C1`, `F5..FF` and stray continuation bytes are
    /// one unit each. Not one of the modelled policies: `C0 80` gives two U+FFFD (as
    /// maximal subparts), `E0 80 80` gives one (maximal subparts: three).
    PerLeadSizedValidLeads,
    /// A sequence cut by the end of input produces nothing in the lossy output (held back
    /// for more input, as a streaming decoder does); the strict fields report it as
    /// incomplete. A correct streaming behaviour shown by a one-shot call.
    HoldsBackTail,
    /// The lossy output stops at the first error (MySQL's non-strict mode cuts the value
    /// at the first character it cannot store). Breaks C10.
    TruncatesAtError,
    /// Rejects every well-formed 4-byte character (a 3-byte maximum: MySQL `utf8mb3`,
    /// Java's Modified UTF-8). Breaks §4: `UTF8-4` is a character.
    RejectsSupplementary,
    /// Rejects every well-formed multi-byte character (a wrong continuation-byte mask).
    /// Breaks §4.
    RejectsMultibyte,
    /// Rejects U+0000 (`00`), which is a well-formed 1-byte character. Breaks §4:
    /// `UTF8-1 = %x00-7F`.
    RejectsNul,
    /// Rejects the one noncharacter U+FFFF and accepts the 65 others. Breaks C2.
    RejectsFFFF,
    /// Rejects the noncharacters U+FFFE and U+FFFF and accepts the 64 others. Breaks C2.
    RejectsFFFEAndFFFF,
    /// The first error's `error_len` is always 1, whatever its maximal subpart (Go's
    /// `DecodeRune` returns `(RuneError, 1)`); an incomplete end is also reported as 1.
    ErrorLenAlwaysOne,
    /// The first error's `error_len` is the length the lead byte announces (2 for
    /// `C0..DF` up to 6 for `FC..FD`), even past the end of input. Breaks D93b.
    ErrorLenAnnounced,
    /// The bugs listed apply only under a condition on the input or on the unit's
    /// position: a second decoding path.
    When(Gate, &'static [Bug]),
}

/// When a [`Bug::When`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Inputs shorter than this many bytes (a short-input or tail path).
    InputUnder(usize),
    /// Inputs longer than this many bytes (a second path above a threshold).
    InputOver(usize),
    /// A unit whose bytes cross a multiple of this block size (a SIMD block boundary).
    Straddles(usize),
    /// A unit that starts on the last byte of a block of this size.
    EndsBlock(usize),
}

impl Gate {
    /// Whether the gate is open for a unit at `offset` of `len` bytes in an input of
    /// `total` bytes; `unit` is `None` for a whole-input question.
    pub fn open(self, total: usize, unit: Option<(usize, usize)>) -> bool {
        match self {
            Gate::InputUnder(n) => total < n,
            Gate::InputOver(n) => total > n,
            Gate::Straddles(block) => unit.is_some_and(|(offset, len)| {
                len > 1 && offset / block != (offset + len - 1) / block
            }),
            Gate::EndsBlock(block) => unit.is_some_and(|(offset, _)| offset % block == block - 1),
        }
    }
}

impl Bug {
    /// The mechanism's short behaviour id, for expected findings and reports.
    pub fn id(self) -> &'static str {
        use Bug::*;
        match self {
            AcceptsSurrogates => "accepts-surrogates",
            AcceptsOverlong2 => "accepts-overlong-2",
            AcceptsOverlong3 => "accepts-overlong-3",
            AcceptsAboveMax => "accepts-above-max",
            AcceptsFiveByte => "accepts-five-byte",
            StopsAtNul => "stops-at-nul",
            Utf16Pairs => "emits-utf16-pairs",
            RejectsNoncharacters => "rejects-noncharacters",
            Latin1Fallback => "latin1-fallback",
            StripsBom => "strips-bom",
            OffsetAfterBom => "offset-after-bom",
            OffsetInCharacters => "offset-in-characters",
            OffByOnePast64 => "offset-plus-one-past-64",
            PerBytePolicy => "policy-per-byte",
            PerRunPolicy => "policy-per-run",
            PerLeadSizedPolicy => "policy-per-lead-sized",
            SwallowsAfterStray => "swallows-after-stray",
            ErrorLenTakesInterrupter => "error-len-takes-interrupter",
            ErrorLenEndAsInvalid => "error-len-end-as-invalid",
            ShortTailAcceptsC080 => "short-tail-accepts-c0-80",
            RejectsAcross32 => "rejects-across-32",
            MisdecodesE9 => "misdecodes-e9",
            NeverReports => "never-reports",
            ContinuationUnchecked => "continuation-unchecked",
            TruncatedEndReadsZero => "truncated-end-reads-zero",
            HighLeadsAsFour => "high-leads-as-four",
            ContinuationAsLead3 => "continuation-as-lead-3",
            StrayAsOneByte => "stray-as-one-byte",
            AcceptsInvalidLead => "accepts-invalid-lead",
            AcceptsOverlongAll => "accepts-overlong-all",
            AcceptsOverlong4 => "accepts-overlong-4",
            AboveMaxAsPairs => "above-max-as-pairs",
            AboveMaxWraps => "above-max-wraps",
            InvalidByteAsLatin1 => "invalid-byte-as-latin1",
            SurrogateEscape => "policy-surrogateescape",
            IgnoresErrors => "policy-ignore",
            PerLeadSizedValidLeads => "policy-per-valid-lead-sized",
            HoldsBackTail => "holds-back-tail",
            TruncatesAtError => "truncates-at-error",
            RejectsSupplementary => "rejects-supplementary",
            RejectsMultibyte => "rejects-multibyte",
            RejectsNul => "rejects-nul",
            RejectsFFFF => "rejects-ffff",
            RejectsFFFEAndFFFF => "rejects-fffe-ffff",
            ErrorLenAlwaysOne => "error-len-always-one",
            ErrorLenAnnounced => "error-len-announced",
            When(..) => "gated",
        }
    }

    /// Whether the mechanism needs the lenient walker, which decodes a unit from its
    /// lead byte's bit pattern and then asks which departures are allowed.
    pub fn is_lenient(self) -> bool {
        use Bug::*;
        matches!(
            self,
            ContinuationUnchecked
                | TruncatedEndReadsZero
                | HighLeadsAsFour
                | ContinuationAsLead3
                | StrayAsOneByte
                | AcceptsInvalidLead
                | AcceptsOverlongAll
                | AcceptsOverlong4
                | AboveMaxAsPairs
                | AboveMaxWraps
        )
    }
}
