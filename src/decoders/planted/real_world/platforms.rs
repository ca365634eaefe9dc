//! Planted decoders written from reports and documentation of language runtimes
//! (Java, Go, .NET, Python, Perl, Nim, Swift, Node.js), databases (MySQL, PostgreSQL),
//! C libraries, the WHATWG Encoding Standard and CESU-8 (Unicode Technical Report #26).

use super::*;
use crate::decoders::planted::expect::Kind::Unusual;

/// Go's `(RuneError, 1)` for every invalid byte: one U+FFFD per byte.
const GO_PER_BYTE: Expected = expect(
    PerBytePolicy,
    IllFormed(TruncatedInterrupted),
    "E0 A0 41",
    "invalid at 0 len 1; FFFD FFFD 0041",
)
.kind(Policy)
.masked(&[ErrorLenAlwaysOne]);
/// Go's `(RuneError, 1)` for a sequence cut by the end of input too: length 1.
const GO_ERROR_LEN_ONE: Expected = expect(
    ErrorLenAlwaysOne,
    IllFormed(TruncatedAtEnd),
    "C2",
    "invalid at 0 len 1; FFFD",
)
.kind(Policy);

/// The platform decoders.
pub const PLATFORMS: &[Entry] = &[
    Entry {
        name: "planted-java-modified-utf8",
        source: "java.io.DataInput readUTF, Modified UTF-8: C0 80 for U+0000, no shortest-form \
                 or surrogate check on 2- and 3-byte forms (one check missing: one finding), \
                 4-byte forms are malformed input",
        bugs: &[
            AcceptsOverlong2,
            AcceptsOverlong3,
            AcceptsSurrogates,
            RejectsSupplementary,
        ],
        findings: &[
            OVERLONG_2.also(&[AcceptsOverlong3]),
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
            // The cut gives nothing for every error, this rejection's too: no witness
            // of the rejection can leave the cut out.
            expect(
                RejectsSupplementary,
                WellFormed,
                "F0 9F 98 80",
                "invalid at 0 len 4; -",
            )
            .masked(&[TruncatesAtError]),
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
        findings: &[GO_PER_BYTE, GO_ERROR_LEN_ONE],
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
        findings: &[LOSSY_ONLY_IGNORE, IGNORE_SILENT],
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
        findings: &[SURROGATE, ABOVE_MAX, FIVE_BYTE],
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
        name: "planted-bionic-mbrtoc32",
        source: "Android bionic mbrtoc32, 'Fix some long-standing UTF-8 bugs': U+FFFE and \
                 U+FFFF were rejected and characters above U+10FFFF accepted",
        bugs: &[RejectsFFFEAndFFFF, AcceptsAboveMax],
        findings: &[
            expect(
                RejectsFFFEAndFFFF,
                WellFormed,
                "EF BF BE",
                "invalid at 0 len 3; FFFD",
            ),
            ABOVE_MAX,
        ],
    },
    Entry {
        name: "planted-freebsd-citrus-surrogates",
        source: "FreeBSD libc citrus UTF-8, 'Avoid invalid code points' (from OpenBSD): the \
                 decoder accepted byte sequences that decode to U+D800..U+DFFF",
        bugs: &[AcceptsSurrogates],
        findings: &[SURROGATE],
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
        name: "planted-nim-validateutf8",
        source: "Nim std/unicode validateUtf8 (before it was rewritten on runeAndSizeAt): \
                 rejects C0 and C1 ('Catch overlong ascii representations') but checks only \
                 bit patterns after E0..F7, so 3- and 4-byte overlong forms (one check \
                 missing: one finding), surrogates and F4 90..F7 leads pass",
        bugs: &[
            AcceptsOverlong3,
            AcceptsOverlong4,
            AcceptsSurrogates,
            AcceptsAboveMax,
        ],
        findings: &[
            expect(
                AcceptsOverlong3,
                IllFormed(Overlong3),
                "E0 80 80",
                "valid; 0000",
            )
            .also(&[AcceptsOverlong4]),
            SURROGATE,
            ABOVE_MAX,
        ],
    },
    Entry {
        name: "planted-go10-utf8",
        source: "Go 1.0 unicode/utf8 and range over a string: surrogate halves decoded \
                 (golang/go#3927, fixed in Go 1.1 by 'all: make Unicode surrogate halves \
                 illegal as UTF-8'), and (RuneError, 1) for every other invalid byte",
        bugs: &[PerBytePolicy, ErrorLenAlwaysOne, AcceptsSurrogates],
        findings: &[GO_PER_BYTE, GO_ERROR_LEN_ONE, SURROGATE],
    },
    Entry {
        name: "planted-cesu8-utr26",
        source: "Unicode Technical Report #26, CESU-8 (Oracle's UTF8 character set, SAP): a \
                 supplementary character is two 3-byte surrogate forms and the 4-byte form \
                 is not CESU-8; a CESU-8 decoder read as a UTF-8 one",
        bugs: &[AcceptsSurrogates, RejectsSupplementary],
        findings: &[SURROGATE, SUPPLEMENTARY],
    },
    Entry {
        name: "planted-swift-string-cstring",
        source: "Swift String(cString:): 'copying the null-terminated UTF-8 data'; 'if cString \
                 contains ill-formed UTF-8 code unit sequences, this initializer replaces them \
                 with the Unicode replacement character' (no error; the bytes after a 00 \
                 are not read)",
        bugs: &[NeverReports, StopsAtNul],
        findings: &[
            LOSSY_ONLY,
            expect(StopsAtNul, WellFormed, "00 41", "valid; -"),
        ],
    },
    Entry {
        name: "planted-node-stringdecoder-write",
        source: "Node.js string_decoder StringDecoder.write: 'any incomplete multibyte \
                 characters at the end of the Buffer ... are omitted from the returned string \
                 and stored in an internal buffer for the next call' (a one-shot write shows \
                 the held-back prefix)",
        bugs: &[NeverReports, HoldsBackTail],
        findings: &[
            LOSSY_ONLY,
            expect(
                HoldsBackTail,
                IllFormed(TruncatedAtEnd),
                "E2 82",
                "valid; -",
            )
            .kind(Unusual)
            .masked(&[NeverReports]),
        ],
    },
];
