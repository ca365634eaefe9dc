//! Planted decoders written from reports against libraries and from their documented
//! behaviour: serialisation formats (protobuf, MessagePack, CBOR, BSON, JSON), parsers,
//! crypto and SIMD validators, libxml2, Chromium's base library and Haskell's
//! utf8-string.

use super::*;
use crate::decoders::planted::bugs::Gate;
use crate::decoders::planted::expect::Condition::{EndsBlock, InputUnder, Straddles};

/// The library decoders.
pub const LIBRARIES: &[Entry] = &[
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
            LOSSY_ONLY_LATIN1,
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
            LATIN1_SILENT.when(InputUnder(201)),
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
    Entry {
        name: "planted-libxml2-xmlcheckutf8",
        source: "libxml2 xmlCheckUTF8 (xmlstring.c): checks only the bit patterns of a \
                 null-terminated string; its comment says it 'will allow longer UTF-8 \
                 sequences than necessary' and 'does not check for 0x10ffff maximum value' \
                 (nor for surrogates), and it stops at the first 00",
        bugs: &[
            AcceptsOverlongAll,
            AcceptsSurrogates,
            AcceptsAboveMax,
            StopsAtNul,
        ],
        findings: &[
            OVERLONG,
            SURROGATE,
            ABOVE_MAX,
            expect(StopsAtNul, WellFormed, "00 41", "valid; -"),
        ],
    },
    Entry {
        name: "planted-chromium-isstringutf8",
        source: "Chromium base::IsStringUTF8 (base/strings/string_util.h): 'structurally \
                 valid UTF-8 and also doesn't contain any non-character code point'; \
                 IsStringUTF8AllowingNoncharacters is the conforming check",
        bugs: &[RejectsNoncharacters],
        findings: &[NONCHARACTER],
    },
    Entry {
        name: "planted-haskell-utf8-string",
        source: "Haskell utf8-string Codec.Binary.UTF8.String.decode: returns a String, never \
                 an error; a sequence is read as far as its lead byte announces and its \
                 continuation bytes go, then one U+FFFD if the value is overlong, a \
                 surrogate, above U+10FFFF, or U+FFFE / U+FFFF",
        bugs: &[NeverReports, PerLeadSizedPolicy, RejectsFFFEAndFFFF],
        findings: &[
            LOSSY_ONLY,
            expect(
                PerLeadSizedPolicy,
                IllFormed(Overlong2),
                "C0 80",
                "valid; FFFD",
            )
            .kind(Policy)
            .masked(&[NeverReports]),
            expect(RejectsFFFEAndFFFF, WellFormed, "EF BF BE", "valid; FFFD")
                .masked(&[NeverReports]),
        ],
    },
];
