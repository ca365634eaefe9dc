//! Planted decoders written from real decoder bug reports and CVEs. Each decoder is the
//! correct walker with the mechanisms the report describes (or, where a report describes
//! more than four, a subset, said in its source line); its doc line names the report.
//! The decoders are models of the reported behaviour, not copies of the code: where a
//! report leaves a detail open (what a read past the buffer returns, which lead bytes a
//! policy counts), the choice is said in the source line.

use super::bugs::Bug::*;
use super::bugs::Gate;
use super::expect::Condition::{EndsBlock, InputUnder, Straddles};
use super::expect::Input::{IllFormed, WellFormed};
use super::expect::Kind::{Policy, Unusual};
use super::expect::{expect, Entry, Expected};
use crate::taxonomy::Category::*;

/// `C2 41` taken whole: the `A` is lost in U+0081.
const UNCHECKED: Expected = expect(
    ContinuationUnchecked,
    IllFormed(TruncatedInterrupted),
    "C2 41",
    "valid; 0081",
);
const SURROGATE: Expected = expect(
    AcceptsSurrogates,
    IllFormed(Surrogate),
    "ED A0 80",
    "valid; D800",
);
const OVERLONG: Expected = expect(
    AcceptsOverlongAll,
    IllFormed(Overlong2),
    "C0 80",
    "valid; 0000",
);
const FIVE_BYTE: Expected = expect(
    AcceptsFiveByte,
    IllFormed(Legacy5Or6Byte),
    "F8 88 80 80 80",
    "valid; 200000",
);
const F5: Expected = expect(
    AcceptsAboveMax,
    IllFormed(AboveMax),
    "F5 80 80 80",
    "valid; 140000",
);
const SUPPLEMENTARY: Expected = expect(
    RejectsSupplementary,
    WellFormed,
    "F0 9F 98 80",
    "invalid at 0 len 4; FFFD",
);
const NUL: Expected = expect(RejectsNul, WellFormed, "00", "invalid at 0 len 1; FFFD");
/// A lossy-only decoder's verdict on a stray byte, where nothing else changes it.
const LOSSY_ONLY: Expected = expect(
    NeverReports,
    IllFormed(UnexpectedContinuation),
    "80",
    "valid; FFFD",
)
.kind(Policy);
/// `E2 82` cut by the end of input, read as if a zero-payload byte followed.
const READS_ZERO: Expected = expect(
    TruncatedEndReadsZero,
    IllFormed(TruncatedAtEnd),
    "E2 82",
    "valid; 2080",
);
const PER_BYTE_E0_A0: Expected = expect(
    PerBytePolicy,
    IllFormed(TruncatedInterrupted),
    "E0 A0 41",
    "valid; FFFD FFFD 0041",
)
.kind(Policy)
.masked(&[NeverReports]);

/// The decoders written from real reports.
pub const REAL_WORLD: &[Entry] = &[
    Entry {
        name: "planted-libtomcrypt-der-utf8",
        source: "CVE-2019-17362, libtomcrypt der_decode_utf8_string (libtom/libtomcrypt#507): \
                 a 10xxxxxx lead counted as a 1-byte length; no shortest-form, surrogate or \
                 range check",
        bugs: &[
            StrayAsOneByte,
            AcceptsOverlongAll,
            AcceptsSurrogates,
            AcceptsAboveMax,
        ],
        findings: &[
            expect(
                StrayAsOneByte,
                IllFormed(UnexpectedContinuation),
                "80",
                "valid; 0000",
            ),
            // Without the other bugs, the continuation bytes of these witnesses are
            // stray, and the first bug decodes them: they sit behind it.
            OVERLONG.masked(&[StrayAsOneByte]),
            SURROGATE.masked(&[StrayAsOneByte]),
            F5.masked(&[StrayAsOneByte]),
        ],
    },
    Entry {
        name: "planted-lexbor-decode-valid-single",
        source: "lexbor/lexbor#354 and php-src GH-21734: lxb_encoding_decode_valid_utf_8_single() \
                 accepts overlong UTF-8, surrogates, and invalid continuation bytes \
                 (C1 A5 is 'e')",
        bugs: &[
            ContinuationUnchecked,
            AcceptsOverlongAll,
            AcceptsSurrogates,
            AcceptsAboveMax,
        ],
        findings: &[
            UNCHECKED,
            expect(
                AcceptsOverlongAll,
                IllFormed(Overlong2),
                "C1 A5",
                "valid; 0065",
            ),
            SURROGATE,
            F5,
        ],
    },
    Entry {
        name: "planted-protobufjs-utf8-read",
        source: "protobuf.js utf8.read (protobufjs/protobuf.js#1473, #1486): lead tests \
                 t > 191 && t < 224, t > 239 && t < 365, else three bytes; four of its \
                 mechanisms (its overlong and surrogate acceptance are in \
                 planted-lexbor-decode-valid-single)",
        bugs: &[
            NeverReports,
            ContinuationUnchecked,
            ContinuationAsLead3,
            HighLeadsAsFour,
            AboveMaxAsPairs,
        ],
        findings: &[
            LOSSY_ONLY,
            UNCHECKED.masked(&[NeverReports]),
            expect(
                ContinuationAsLead3,
                IllFormed(UnexpectedContinuation),
                "81 80 80",
                "valid; 1000",
            )
            .masked(&[NeverReports]),
            expect(
                HighLeadsAsFour,
                IllFormed(Legacy5Or6Byte),
                "F9 80 80 80",
                "valid; 40000",
            )
            .masked(&[NeverReports]),
            expect(
                AboveMaxAsPairs,
                IllFormed(AboveMax),
                "F4 90 80 80",
                "valid; DC00 DC00",
            )
            .masked(&[NeverReports]),
        ],
    },
    Entry {
        name: "planted-msgpack-js-short-strings",
        source: "msgpack-javascript utf8DecodeJs, used for strings up to TEXT_DECODER_THRESHOLD \
                 (200 bytes; TextDecoder above): no continuation check, surrogate pairs masked \
                 with & 0x3FF, other bytes pushed as their own value",
        bugs: &[
            NeverReports,
            When(
                Gate::InputUnder(201),
                &[
                    ContinuationUnchecked,
                    AcceptsSurrogates,
                    AboveMaxWraps,
                    InvalidByteAsLatin1,
                ],
            ),
        ],
        findings: &[
            expect(
                NeverReports,
                IllFormed(UnexpectedContinuation),
                "80",
                "valid; 0080",
            )
            .kind(Policy)
            .masked(&[InvalidByteAsLatin1]),
            UNCHECKED
                .when(InputUnder(201))
                .masked(&[NeverReports, InvalidByteAsLatin1]),
            SURROGATE
                .when(InputUnder(201))
                .masked(&[NeverReports, InvalidByteAsLatin1]),
            expect(
                AboveMaxWraps,
                IllFormed(AboveMax),
                "F4 90 80 80",
                "valid; 10000",
            )
            .when(InputUnder(201))
            .masked(&[NeverReports, InvalidByteAsLatin1]),
            expect(
                InvalidByteAsLatin1,
                IllFormed(UnexpectedContinuation),
                "80",
                "valid; 0080",
            )
            .when(InputUnder(201))
            .masked(&[NeverReports]),
        ],
    },
    Entry {
        name: "planted-msgpack-js-truncation",
        source: "msgpack-javascript utf8DecodeJs (short strings): bytes[offset++] & 0x3F past \
                 the end is 0, and no shortest-form check; TextDecoder above 200 bytes",
        bugs: &[
            NeverReports,
            When(
                Gate::InputUnder(201),
                &[TruncatedEndReadsZero, AcceptsOverlongAll],
            ),
        ],
        findings: &[
            LOSSY_ONLY,
            READS_ZERO.when(InputUnder(201)).masked(&[NeverReports]),
            OVERLONG.when(InputUnder(201)).masked(&[NeverReports]),
        ],
    },
    Entry {
        name: "planted-cborg-short-strings",
        source: "rvagg/cborg#156 (strings shorter than 64 bytes take a JavaScript path) with \
                 that path's policy from feross/buffer#305 (E0 AC gives two U+FFFD, Node one)",
        bugs: &[NeverReports, When(Gate::InputUnder(64), &[PerBytePolicy])],
        findings: &[
            LOSSY_ONLY,
            expect(
                PerBytePolicy,
                IllFormed(TruncatedAtEnd),
                "E0 AC",
                "valid; FFFD FFFD",
            )
            .kind(Policy)
            .when(InputUnder(64))
            .masked(&[NeverReports]),
        ],
    },
    Entry {
        name: "planted-feross-buffer",
        source: "feross/buffer#305: Incorrect toString for invalid UTF8 multibyte codepoints \
                 (one U+FFFD per byte of a cut sequence)",
        bugs: &[NeverReports, PerBytePolicy],
        findings: &[LOSSY_ONLY, PER_BYTE_E0_A0],
    },
    Entry {
        name: "planted-java-modified-utf8",
        source: "java.io.DataInput readUTF, Modified UTF-8: C0 80 for U+0000, no shortest-form \
                 or surrogate check on 2- and 3-byte forms, 4-byte forms are malformed input",
        bugs: &[
            AcceptsOverlong2,
            AcceptsOverlong3,
            AcceptsSurrogates,
            RejectsSupplementary,
        ],
        findings: &[
            expect(
                AcceptsOverlong2,
                IllFormed(Overlong2),
                "C0 80",
                "valid; 0000",
            ),
            expect(
                AcceptsOverlong3,
                IllFormed(Overlong3),
                "E0 80 80",
                "valid; 0000",
            ),
            SURROGATE,
            SUPPLEMENTARY,
        ],
    },
    Entry {
        name: "planted-mysql-utf8mb3",
        source: "MySQL utf8mb3 (the 3-byte 'utf8'): characters outside the BMP are \
                 'Incorrect string value'",
        bugs: &[RejectsSupplementary],
        findings: &[SUPPLEMENTARY],
    },
    Entry {
        name: "planted-mysql-utf8mb3-nonstrict",
        source: "MySQL utf8mb3 in non-strict sql_mode: the value is cut at the first character \
                 it cannot store, with a warning",
        bugs: &[RejectsSupplementary, TruncatesAtError],
        findings: &[
            expect(
                RejectsSupplementary,
                WellFormed,
                "F0 9F 98 80",
                "invalid at 0 len 4; -",
            ),
            expect(
                TruncatesAtError,
                IllFormed(UnexpectedContinuation),
                "80 41",
                "invalid at 0 len 1; -",
            ),
        ],
    },
    Entry {
        name: "planted-postgres-nul",
        source: "PostgreSQL: invalid byte sequence for encoding \"UTF8\": 0x00 (text cannot \
                 hold U+0000)",
        bugs: &[RejectsNul],
        findings: &[NUL.kind(Policy)],
    },
    Entry {
        name: "planted-postgres-cve-2006-2313",
        source: "CVE-2006-2313, PostgreSQL before 8.1.4: invalidly-encoded multibyte characters \
                 let a lead byte swallow the quote after it; with the NUL rejection",
        bugs: &[ContinuationUnchecked, RejectsNul],
        findings: &[
            expect(
                ContinuationUnchecked,
                IllFormed(TruncatedInterrupted),
                "C2 27",
                "valid; 00A7",
            ),
            NUL.kind(Policy),
        ],
    },
    Entry {
        name: "planted-go-decoderune",
        source: "Go unicode/utf8 DecodeRune: an invalid encoding returns (RuneError, 1), so a \
                 range loop gives one U+FFFD per byte",
        bugs: &[PerBytePolicy, ErrorLenAlwaysOne],
        findings: &[
            expect(
                PerBytePolicy,
                IllFormed(TruncatedInterrupted),
                "E0 A0 41",
                "invalid at 0 len 1; FFFD FFFD 0041",
            )
            .kind(Policy)
            .masked(&[ErrorLenAlwaysOne]),
            expect(
                ErrorLenAlwaysOne,
                IllFormed(TruncatedAtEnd),
                "C2",
                "invalid at 0 len 1; FFFD",
            )
            .kind(Policy),
        ],
    },
    Entry {
        name: "planted-go-tovalidutf8",
        source: "Go strings.ToValidUTF8: replaces each run of invalid UTF-8 byte sequences \
                 with the replacement string",
        bugs: &[PerRunPolicy],
        findings: &[expect(
            PerRunPolicy,
            IllFormed(UnexpectedContinuation),
            "80 80",
            "invalid at 0 len 1; FFFD",
        )
        .kind(Policy)],
    },
    Entry {
        name: "planted-dotnet-framework",
        source: "dotnet/corefx#41714 (F0 8E gives one U+FFFD before .NET Core 3.0, two after) \
                 and dotnet/docs#13547; which leads announce a length is not documented: here \
                 only C2..F4 do",
        bugs: &[PerLeadSizedValidLeads],
        findings: &[expect(
            PerLeadSizedValidLeads,
            IllFormed(Overlong4),
            "F0 8E",
            "invalid at 0 len 1; FFFD",
        )
        .kind(Policy)],
    },
    Entry {
        name: "planted-dotnet7-streamreader",
        source: "dotnet/docs#38262: a .NET 7 StreamReader emits nothing for a character cut by \
                 the end of the stream (.NET 8 emits U+FFFD)",
        bugs: &[HoldsBackTail],
        findings: &[expect(
            HoldsBackTail,
            IllFormed(TruncatedAtEnd),
            "20 20 C2",
            "invalid at 2 incomplete; 0020 0020",
        )
        .kind(Unusual)],
    },
    Entry {
        name: "planted-dotnet-binaryreader",
        source: "dotnet/runtime#93500: BinaryReader.ReadString of 01 C2 returned an empty \
                 string up to .NET 8",
        bugs: &[NeverReports, HoldsBackTail],
        findings: &[
            LOSSY_ONLY,
            expect(HoldsBackTail, IllFormed(TruncatedAtEnd), "C2", "valid; -")
                .kind(Unusual)
                .masked(&[NeverReports]),
        ],
    },
    Entry {
        name: "planted-python-surrogateescape",
        source: "Python's surrogateescape error handler (PEP 383): each undecodable byte b \
                 becomes U+DC00 + b, and no error is raised",
        bugs: &[NeverReports, SurrogateEscape],
        findings: &[
            expect(
                NeverReports,
                IllFormed(UnexpectedContinuation),
                "80",
                "valid; DC80",
            )
            .kind(Policy)
            .masked(&[SurrogateEscape]),
            expect(
                SurrogateEscape,
                IllFormed(TruncatedInterrupted),
                "E0 A0 41",
                "valid; DCE0 DCA0 0041",
            )
            .kind(Policy)
            .masked(&[NeverReports]),
        ],
    },
    Entry {
        name: "planted-python-surrogatepass",
        source: "Python's surrogatepass error handler: encoded surrogates decode to themselves",
        bugs: &[AcceptsSurrogates],
        findings: &[SURROGATE.kind(Policy)],
    },
    Entry {
        name: "planted-python-ignore",
        source: "Python's ignore error handler: malformed data is dropped and decoding goes on",
        bugs: &[NeverReports, IgnoresErrors],
        findings: &[
            expect(
                NeverReports,
                IllFormed(UnexpectedContinuation),
                "80",
                "valid; -",
            )
            .kind(Policy)
            .masked(&[IgnoresErrors]),
            expect(
                IgnoresErrors,
                IllFormed(UnexpectedContinuation),
                "80 41",
                "valid; 0041",
            )
            .kind(Policy)
            .masked(&[NeverReports]),
        ],
    },
    Entry {
        name: "planted-python-utf8-sig",
        source: "Python's utf-8-sig codec: a leading BOM is skipped, and error positions count \
                 from after it",
        bugs: &[StripsBom, OffsetAfterBom],
        findings: &[
            expect(StripsBom, WellFormed, "EF BB BF", "valid; -").kind(Unusual),
            expect(
                OffsetAfterBom,
                IllFormed(TruncatedAtEnd),
                "EF BB BF E6",
                "invalid at 0 incomplete; FFFD",
            )
            .masked(&[StripsBom]),
        ],
    },
    Entry {
        name: "planted-whatwg-utf8-decode",
        source: "WHATWG Encoding Standard, UTF-8 decode: a leading BOM is removed before \
                 decoding",
        bugs: &[StripsBom],
        findings: &[expect(StripsBom, WellFormed, "EF BB BF 41", "valid; 0041").kind(Unusual)],
    },
    Entry {
        name: "planted-perl-lax-utf8",
        source: "Perl/perl5#8944 (utf8::valid considers illegal characters to be valid) and \
                 Encode's 'UTF-8 vs. utf8' (dankogai/p5-encode#155: F8 88 80 80 80 is \
                 U+200000 under utf8)",
        bugs: &[AcceptsSurrogates, AcceptsAboveMax, AcceptsFiveByte],
        findings: &[
            SURROGATE,
            expect(
                AcceptsAboveMax,
                IllFormed(AboveMax),
                "F4 90 80 80",
                "valid; 110000",
            ),
            FIVE_BYTE,
        ],
    },
    Entry {
        name: "planted-perl-strict-ffff",
        source: "Perl/perl5#9259: UTF-8 (strict) Encode and Decode detect only 1/66 \
                 non-characters (U+FFFF)",
        bugs: &[RejectsFFFF],
        findings: &[expect(
            RejectsFFFF,
            WellFormed,
            "EF BF BF",
            "invalid at 0 len 3; FFFD",
        )],
    },
    Entry {
        name: "planted-json-voorhees",
        source: "tgockel/json-voorhees#207: UTF-8 validation accepts overlong encodings, \
                 surrogates, and 5/6-byte sequences (and F5 80 80 80)",
        bugs: &[
            AcceptsOverlongAll,
            AcceptsSurrogates,
            AcceptsFiveByte,
            AcceptsAboveMax,
        ],
        findings: &[OVERLONG, SURROGATE, FIVE_BYTE, F5],
    },
    Entry {
        name: "planted-libbson-legacy",
        source: "mongodb/libbson#213 (CDRIVER-2403: bson-utf8 functions decoded 5- and 6-byte \
                 sequences) and bson_utf8_validate's allow_null = false",
        bugs: &[AcceptsFiveByte, RejectsNul],
        findings: &[FIVE_BYTE, NUL.kind(Policy)],
    },
    Entry {
        name: "planted-smlnj-utf8-getu",
        source: "smlnj/smlnj#276: UTF8.getu should validate that its input is UTF-8 \
                 (non-shortest forms are decoded)",
        bugs: &[AcceptsOverlongAll],
        findings: &[expect(
            AcceptsOverlongAll,
            IllFormed(Overlong3),
            "E0 81 81",
            "valid; 0041",
        )],
    },
    Entry {
        name: "planted-simd-json-block-end",
        source: "simd-lite/simd-json#166: a multi-byte character at the end of a SIMD block is \
                 not checked when the next block is processed (32-byte AVX2 blocks)",
        bugs: &[When(Gate::Straddles(32), &[ContinuationUnchecked])],
        findings: &[expect(
            ContinuationUnchecked,
            IllFormed(TruncatedInterrupted),
            "41*31 C2 31",
            "valid; 0041*31 00B1",
        )
        .when(Straddles(32))],
    },
    Entry {
        name: "planted-simdjson-ff-at-block-end",
        source: "simdjson/simdjson#1169: validate_utf8() gives different results depending on \
                 implementation (63 spaces then FF pass haswell and westmere)",
        bugs: &[When(Gate::EndsBlock(64), &[AcceptsInvalidLead])],
        findings: &[expect(
            AcceptsInvalidLead,
            IllFormed(InvalidLead),
            "20*63 FF",
            "valid; 0020*63 00FF",
        )
        .when(EndsBlock(64))],
    },
    Entry {
        name: "planted-simdjson-fallback-overlong-4",
        source: "simdjson/simdjson#1187: validate_utf8() for fallback allows unnecessary \
                 leading zeros in four byte sequence (F0 8F BF BF)",
        bugs: &[AcceptsOverlong4],
        findings: &[expect(
            AcceptsOverlong4,
            IllFormed(Overlong4),
            "F0 8F BF BF",
            "valid; FFFF",
        )],
    },
    Entry {
        name: "planted-msvc-mbrtowc",
        source: "microsoft/STL#6060: _Mbrtowc accepted overlong forms (C0 80, C0 81), and \
                 returns early for results outside the Basic Multilingual Plane",
        bugs: &[AcceptsOverlongAll, RejectsSupplementary],
        findings: &[
            expect(
                AcceptsOverlongAll,
                IllFormed(Overlong2),
                "C0 81",
                "valid; 0001",
            ),
            SUPPLEMENTARY,
        ],
    },
    Entry {
        name: "planted-expat-truncated-read",
        source: "CVE-2009-3720, Expat updatePosition: crafted (cut) UTF-8 sequences read past \
                 the end of the buffer; the bytes read are taken here as zero payload",
        bugs: &[TruncatedEndReadsZero],
        findings: &[READS_ZERO],
    },
    Entry {
        name: "planted-jspb-readstring",
        source: "protocolbuffers/protobuf#7887 (protobuf-javascript#23): readString does not \
                 check continuation bytes and reads past the end of the string field; the \
                 bytes past the end are taken here as zero payload",
        bugs: &[NeverReports, ContinuationUnchecked, TruncatedEndReadsZero],
        findings: &[
            LOSSY_ONLY,
            UNCHECKED.masked(&[NeverReports]),
            READS_ZERO.masked(&[NeverReports]),
        ],
    },
    Entry {
        name: "planted-iconv-ignore",
        source: "glibc iconv //IGNORE: invalid input is discarded, and the call still ends \
                 with EILSEQ",
        bugs: &[IgnoresErrors],
        findings: &[expect(
            IgnoresErrors,
            IllFormed(UnexpectedContinuation),
            "80 41",
            "invalid at 0 len 1; 0041",
        )
        .kind(Policy)],
    },
    Entry {
        name: "planted-gmssl-asn1-utf8",
        source: "guanzhi/GmSSL#1894: asn1_string_is_utf8_string rejects legal multi-byte \
                 characters (a wrong continuation-byte mask)",
        bugs: &[RejectsMultibyte],
        findings: &[expect(
            RejectsMultibyte,
            WellFormed,
            "C3 BC",
            "invalid at 0 len 2; FFFD",
        )],
    },
    Entry {
        name: "planted-libtorrent-sequence-length",
        source: "arvidn/libtorrent#8618: don't report a utf8 sequence length longer than the \
                 input (F8..FB reported as 5 bytes)",
        bugs: &[ErrorLenAnnounced],
        findings: &[expect(
            ErrorLenAnnounced,
            IllFormed(InvalidLead),
            "F8",
            "invalid at 0 len 5; FFFD",
        )],
    },
    Entry {
        name: "planted-ugorji-go-codec",
        source: "ugorji/go#370: decoding invalid MsgPack strings is not detected (the string \
                 is then ranged over by Go, one U+FFFD per byte)",
        bugs: &[NeverReports, PerBytePolicy],
        findings: &[LOSSY_ONLY, PER_BYTE_E0_A0],
    },
    Entry {
        name: "planted-ct-latin1-fallback",
        source: "google/certificate-transparency#1094: on an unknown code point, decode the \
                 field again as ISO-8859-1",
        bugs: &[NeverReports, Latin1Fallback],
        findings: &[
            expect(
                NeverReports,
                IllFormed(UnexpectedContinuation),
                "80",
                "valid; 0080",
            )
            .kind(Policy)
            .masked(&[Latin1Fallback]),
            expect(
                Latin1Fallback,
                IllFormed(UnexpectedContinuation),
                "C3 A9 80",
                "valid; 00C3 00A9 0080",
            )
            .masked(&[NeverReports]),
        ],
    },
];
