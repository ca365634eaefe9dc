//! The first planted decoders: one or two bugs each, written for the harness's own tests
//! (the rule-based diagnosis is checked on them in `tests`). Their sources are the
//! shapes the bugs come from; the decoders in [`super::real_world`] carry their reports.

use super::bugs::Bug::*;
use super::bugs::Gate;
use super::expect::Condition::{ErrorFrom, InputOver, InputUnder, Straddles};
use super::expect::Input::{IllFormed, WellFormed};
use super::expect::Kind::{Policy, Unusual};
use super::expect::{expect, Entry};
use crate::taxonomy::Category::*;

const SYNTHETIC: &str = "harness self-test";

/// The self-test decoders, with the findings each bug must give.
pub const SELF_TEST: &[Entry] = &[
    Entry {
        name: "planted-surrogates",
        source: "harness self-test; the shape of WTF-8 decoders",
        bugs: &[AcceptsSurrogates],
        findings: &[expect(
            AcceptsSurrogates,
            IllFormed(Surrogate),
            "ED A0 80",
            "valid; D800",
        )],
    },
    Entry {
        name: "planted-overlong-2",
        source: "harness self-test; Modified UTF-8's C0 80",
        bugs: &[AcceptsOverlong2],
        findings: &[super::real_world::OVERLONG_2],
    },
    Entry {
        name: "planted-overlong-3",
        source: SYNTHETIC,
        bugs: &[AcceptsOverlong3],
        findings: &[expect(
            AcceptsOverlong3,
            IllFormed(Overlong3),
            "E0 80 80",
            "valid; 0000",
        )],
    },
    Entry {
        name: "planted-above-max",
        source: SYNTHETIC,
        bugs: &[AcceptsAboveMax],
        findings: &[super::real_world::ABOVE_MAX],
    },
    Entry {
        name: "planted-five-byte",
        source: "harness self-test; RFC 2279 decoders",
        bugs: &[AcceptsFiveByte],
        findings: &[expect(
            AcceptsFiveByte,
            IllFormed(Legacy5Or6Byte),
            "F8 88 80 80 80",
            "valid; 200000",
        )],
    },
    Entry {
        name: "planted-stop-at-nul",
        source: "harness self-test; C-string decoders",
        bugs: &[StopsAtNul],
        findings: &[expect(StopsAtNul, WellFormed, "00 41", "valid; -")],
    },
    Entry {
        name: "planted-utf16-pairs",
        source: "harness self-test; UTF-16 based runtimes",
        bugs: &[Utf16Pairs],
        findings: &[expect(
            Utf16Pairs,
            WellFormed,
            "F0 9F 98 80",
            "valid; D83D DE00",
        )],
    },
    Entry {
        name: "planted-noncharacters",
        source: SYNTHETIC,
        bugs: &[RejectsNoncharacters],
        findings: &[super::real_world::NONCHARACTER],
    },
    Entry {
        name: "planted-latin1-fallback",
        source: SYNTHETIC,
        bugs: &[Latin1Fallback],
        findings: &[expect(
            Latin1Fallback,
            IllFormed(UnexpectedContinuation),
            "80",
            "invalid at 0 len 1; 0080",
        )],
    },
    Entry {
        name: "planted-bom-strip",
        source: "harness self-test; WHATWG decode's BOM sniffing",
        bugs: &[StripsBom],
        findings: &[expect(StripsBom, WellFormed, "EF BB BF", "valid; -").kind(Unusual)],
    },
    Entry {
        name: "planted-offset-after-bom",
        source: "harness self-test; CPython's utf-8-sig",
        bugs: &[OffsetAfterBom],
        findings: &[expect(
            OffsetAfterBom,
            IllFormed(TruncatedAtEnd),
            "EF BB BF E6",
            "invalid at 0 incomplete; FEFF FFFD",
        )],
    },
    Entry {
        name: "planted-offset-in-chars",
        source: SYNTHETIC,
        bugs: &[OffsetInCharacters],
        findings: &[expect(
            OffsetInCharacters,
            IllFormed(UnexpectedContinuation),
            "C2 80 80",
            "invalid at 1 len 1; 0080 FFFD",
        )],
    },
    Entry {
        name: "planted-off-by-one-past-64",
        source: SYNTHETIC,
        bugs: &[OffByOnePast64],
        findings: &[past_64()],
    },
    Entry {
        name: "planted-per-byte",
        source: SYNTHETIC,
        bugs: &[PerBytePolicy],
        findings: &[expect(
            PerBytePolicy,
            IllFormed(TruncatedAtEnd),
            "E0 A0",
            "invalid at 0 incomplete; FFFD FFFD",
        )
        .kind(Policy)],
    },
    Entry {
        name: "planted-per-run",
        source: SYNTHETIC,
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
        name: "planted-per-lead-sized",
        source: SYNTHETIC,
        bugs: &[PerLeadSizedPolicy],
        findings: &[expect(
            PerLeadSizedPolicy,
            IllFormed(Overlong2),
            "C0 80",
            "invalid at 0 len 1; FFFD",
        )
        .kind(Policy)],
    },
    Entry {
        name: "planted-swallow-after-stray",
        source: "harness self-test; Perl's lax decoder",
        bugs: &[SwallowsAfterStray],
        findings: &[swallow()],
    },
    Entry {
        name: "planted-error-len-interrupter",
        source: SYNTHETIC,
        bugs: &[ErrorLenTakesInterrupter],
        findings: &[expect(
            ErrorLenTakesInterrupter,
            IllFormed(TruncatedInterrupted),
            "C2 41",
            "invalid at 0 len 2; FFFD 0041",
        )],
    },
    Entry {
        name: "planted-error-len-at-end",
        source: SYNTHETIC,
        bugs: &[ErrorLenEndAsInvalid],
        findings: &[expect(
            ErrorLenEndAsInvalid,
            IllFormed(TruncatedAtEnd),
            "C2",
            "invalid at 0 len 1; FFFD",
        )],
    },
    Entry {
        name: "planted-short-tail-c0-80",
        source: "harness self-test; SIMD decoders' scalar tail",
        bugs: &[ShortTailAcceptsC080],
        findings: &[expect(
            ShortTailAcceptsC080,
            IllFormed(Overlong2),
            "C0 80",
            "valid; 0000",
        )
        .when(InputUnder(16))],
    },
    Entry {
        name: "planted-across-32",
        source: "harness self-test; SIMD block boundaries",
        bugs: &[RejectsAcross32],
        findings: &[expect(
            RejectsAcross32,
            WellFormed,
            "41*30 E3 81 8C",
            "invalid at 30 len 3; 0041*30 FFFD",
        )
        .when(Straddles(32))],
    },
    Entry {
        name: "planted-misdecodes-e9",
        source: SYNTHETIC,
        bugs: &[MisdecodesE9],
        findings: &[expect(MisdecodesE9, WellFormed, "C3 A9", "valid; 0065")],
    },
    Entry {
        name: "planted-two-nul-and-surrogates",
        source: SYNTHETIC,
        bugs: &[StopsAtNul, AcceptsSurrogates],
        findings: &[
            expect(StopsAtNul, WellFormed, "00 41", "valid; -"),
            expect(
                AcceptsSurrogates,
                IllFormed(Surrogate),
                "ED A0 80",
                "valid; D800",
            ),
        ],
    },
    Entry {
        name: "planted-two-bom-and-overlong",
        source: SYNTHETIC,
        bugs: &[StripsBom, AcceptsOverlong2],
        findings: &[
            expect(StripsBom, WellFormed, "EF BB BF", "valid; -").kind(Unusual),
            expect(
                AcceptsOverlong2,
                IllFormed(Overlong2),
                "C0 80",
                "valid; 0000",
            ),
        ],
    },
    Entry {
        name: "planted-two-swallow-and-past-64",
        source: SYNTHETIC,
        bugs: &[SwallowsAfterStray, OffByOnePast64],
        findings: &[swallow(), past_64()],
    },
    Entry {
        name: "planted-second-path-over-100",
        source: "harness self-test; libraries that hand inputs over a length to a second \
                 decoder (msgpack-javascript's threshold is 200 bytes), here over 100 bytes \
                 (within the position probe's reach) with the bugs on the long path",
        bugs: &[When(
            Gate::InputOver(100),
            &[AcceptsSurrogates, AcceptsOverlong3],
        )],
        findings: &[
            expect(
                AcceptsSurrogates,
                IllFormed(Surrogate),
                "41*98 ED A0 80",
                "valid; 0041*98 D800",
            )
            .when(InputOver(100)),
            expect(
                AcceptsOverlong3,
                IllFormed(Overlong3),
                "41*98 E0 80 80",
                "valid; 0041*98 0000",
            )
            .when(InputOver(100)),
        ],
    },
];

/// [`Bug::SwallowsAfterStray`]'s finding: the `A` after a stray byte is lost.
const fn swallow() -> super::expect::Expected {
    expect(
        SwallowsAfterStray,
        IllFormed(UnexpectedContinuation),
        "80 41",
        "invalid at 0 len 1; FFFD FFFD",
    )
}

/// [`Bug::OffByOnePast64`]'s finding: an error at byte 64 reported at 65.
const fn past_64() -> super::expect::Expected {
    expect(
        OffByOnePast64,
        IllFormed(InvalidLead),
        "41*64 C0",
        "invalid at 65 len 1; 0041*64 FFFD",
    )
    .when(ErrorFrom(64))
}
