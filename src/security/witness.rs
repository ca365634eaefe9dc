//! Exploit-shaped witnesses and known-variant recognition, both by running the decoder.
//!
//! A witness is a short input in the shape of a published attack, fed to the decoder;
//! it is reported only when the decoder's own answer shows the attack working:
//!
//! | class                  | input                                  | shown when the decoder...        |
//! |------------------------|----------------------------------------|----------------------------------|
//! | non-shortest-accepted  | `2F` and `C0 AF` (RFC 3629 §10's `/`)   | decodes both to `/`              |
//! | non-shortest-accepted  | `00` and `C0 80` (RFC 3629 §10's NUL)   | decodes both to U+0000           |
//! | character-swallowed    | `C2 22` (UTS #36 §3.6.1)                | loses the quote                  |
//! | bytes-deleted          | `3C 73 63 72 FF 69 70 74 3E`           | decodes it to `<script>`         |
//! | above-max-accepted     | `F4 90 80 80` (U+110000)               | gives a scalar other than U+FFFD |
//! | surrogates-accepted    | `ED A0 BD ED B8 80` and `F0 9F 98 80`  | decodes both to U+1F600          |
//!
//! The same answers say whether the decoder is a known variant of UTF-8 by design:
//! Modified UTF-8 (Java's `DataInput`, JNI: `C0 80` is U+0000, supplementary characters
//! are CESU-8 pairs, 4-byte forms are rejected), CESU-8 (Unicode TR #26: pairs, no 4-byte
//! forms, no `C0 80`) or WTF-8 (lone surrogates allowed, pairs must use the 4-byte form).

use serde::{Deserialize, Serialize};

use super::{SecurityClass, Severity};
use crate::hex::format_hex;
use crate::outcome::{Answer, Outcome, REPLACEMENT};

/// One probe: a name and its bytes.
struct Probe {
    name: &'static str,
    bytes: &'static [u8],
}

const SLASH: Probe = Probe {
    name: "slash",
    bytes: &[0x2F],
};
const SLASH_OVERLONG: Probe = Probe {
    name: "slash-overlong",
    bytes: &[0xC0, 0xAF],
};
const NUL: Probe = Probe {
    name: "nul",
    bytes: &[0x00],
};
const NUL_OVERLONG: Probe = Probe {
    name: "nul-overlong",
    bytes: &[0xC0, 0x80],
};
const QUOTE_AFTER_LEAD: Probe = Probe {
    name: "quote-after-lead",
    bytes: &[0xC2, 0x22],
};
const SCRIPT_SPLIT: Probe = Probe {
    name: "script-split",
    bytes: &[0x3C, 0x73, 0x63, 0x72, 0xFF, 0x69, 0x70, 0x74, 0x3E],
};
const ABOVE_MAX: Probe = Probe {
    name: "above-max",
    bytes: &[0xF4, 0x90, 0x80, 0x80],
};
const CESU8_PAIR: Probe = Probe {
    name: "cesu8-pair",
    bytes: &[0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80],
};
const FOUR_BYTE: Probe = Probe {
    name: "four-byte",
    bytes: &[0xF0, 0x9F, 0x98, 0x80],
};
const LONE_SURROGATE: Probe = Probe {
    name: "lone-surrogate",
    bytes: &[0xED, 0xA0, 0x80],
};

const PROBES: [Probe; 10] = [
    SLASH,
    SLASH_OVERLONG,
    NUL,
    NUL_OVERLONG,
    QUOTE_AFTER_LEAD,
    SCRIPT_SPLIT,
    ABOVE_MAX,
    CESU8_PAIR,
    FOUR_BYTE,
    LONE_SURROGATE,
];

/// The inputs to run through the decoder, in the order [`assess`] expects the answers.
pub fn probe_inputs() -> Vec<&'static [u8]> {
    PROBES.iter().map(|probe| probe.bytes).collect()
}

/// An input of a witness with the decoder's decode of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessInput {
    /// The input.
    pub input_hex: String,
    /// The decoder's scalars for it.
    pub decoded: Vec<u32>,
}

/// An attack the decoder was seen to fall for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// Its class.
    pub class: SecurityClass,
    /// The class's severity.
    pub severity: Severity,
    /// What the decoder was seen to do, in one sentence.
    pub shows: String,
    /// The inputs and what the decoder made of them.
    pub inputs: Vec<WitnessInput>,
}

/// A known variant of UTF-8 the decoder matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Variant {
    /// `modified-utf-8`, `cesu-8` or `wtf-8`.
    pub name: &'static str,
    /// What defines it, and where.
    pub description: &'static str,
    /// The observations that identify it, one line each.
    pub evidence: Vec<String>,
}

/// Witnesses and variant, from the decoder's answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Assessment {
    /// The attacks the decoder fell for.
    pub witnesses: Vec<Witness>,
    /// The known variant it matches, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
}

impl Assessment {
    /// The witnesses of one class.
    pub fn witnesses_of(&self, class: SecurityClass) -> Vec<Witness> {
        self.witnesses
            .iter()
            .filter(|w| w.class == class)
            .cloned()
            .collect()
    }
}

/// What the decoder answered for each probe.
struct Answers<'a>(&'a [Answer]);

impl Answers<'_> {
    fn outcome(&self, probe: &Probe) -> Option<&Outcome> {
        let index = PROBES.iter().position(|p| p.name == probe.name)?;
        self.0.get(index)?.as_ref().ok()
    }

    fn scalars(&self, probe: &Probe) -> Option<&[u32]> {
        self.outcome(probe)?.scalars.as_deref()
    }

    fn input(&self, probe: &Probe) -> Option<WitnessInput> {
        Some(WitnessInput {
            input_hex: format_hex(probe.bytes),
            decoded: self.scalars(probe)?.to_vec(),
        })
    }

    /// Valid, and decoded to `expected` where the decoder gives scalars.
    fn accepts_as(&self, probe: &Probe, expected: &[u32]) -> bool {
        self.outcome(probe).is_some_and(|outcome| {
            outcome.valid && outcome.scalars.as_deref().is_none_or(|s| s == expected)
        })
    }

    fn rejects(&self, probe: &Probe) -> bool {
        self.outcome(probe).is_some_and(|outcome| !outcome.valid)
    }
}

/// Reads the decoder's `answers` to [`probe_inputs`] (same order).
pub fn assess(answers: &[Answer]) -> Assessment {
    let answers = Answers(answers);
    let mut witnesses = Vec::new();
    let mut witness = |class: SecurityClass, shows: String, inputs: Vec<Option<WitnessInput>>| {
        witnesses.push(Witness {
            class,
            severity: class.severity(),
            shows,
            inputs: inputs.into_iter().flatten().collect(),
        });
    };
    for (shortest, overlong, what) in [
        (&SLASH, &SLASH_OVERLONG, "`/`"),
        (&NUL, &NUL_OVERLONG, "U+0000"),
    ] {
        let (Some(a), Some(b)) = (answers.scalars(shortest), answers.scalars(overlong)) else {
            continue;
        };
        if a == b
            && a == shortest
                .bytes
                .iter()
                .map(|&b| u32::from(b))
                .collect::<Vec<_>>()
        {
            witness(
                SecurityClass::NonShortestAccepted,
                format!(
                    "`{}` and the overlong `{}` both decode to {what}: a check on the bytes for {what} is bypassed",
                    format_hex(shortest.bytes),
                    format_hex(overlong.bytes)
                ),
                vec![answers.input(shortest), answers.input(overlong)],
            );
        }
    }
    if answers
        .scalars(&QUOTE_AFTER_LEAD)
        .is_some_and(|s| !s.contains(&0x22))
    {
        witness(
            SecurityClass::CharacterSwallowed,
            "`C2 22` loses its quote: the `\"` after a truncated lead byte is consumed by the error".into(),
            vec![answers.input(&QUOTE_AFTER_LEAD)],
        );
    }
    let script: Vec<u32> = "<script>".chars().map(u32::from).collect();
    if answers.scalars(&SCRIPT_SPLIT) == Some(script.as_slice()) {
        witness(
            SecurityClass::BytesDeleted,
            "`3C 73 63 72 FF 69 70 74 3E` decodes to `<script>`: the FF is deleted and the halves join".into(),
            vec![answers.input(&SCRIPT_SPLIT)],
        );
    }
    if let Some(decoded) = answers.scalars(&ABOVE_MAX) {
        let wrapped = decoded
            .iter()
            .find(|&&s| s != REPLACEMENT && s <= 0x10FFFF && !(0xD800..=0xDFFF).contains(&s));
        let beyond = decoded.iter().find(|&&s| s > 0x10FFFF);
        let shows = match (wrapped, beyond) {
            (Some(s), _) => Some(format!(
                "`F4 90 80 80` (U+110000) wraps around to the valid character U+{s:04X}"
            )),
            (None, Some(s)) => Some(format!(
                "`F4 90 80 80` decodes to {s:#X}, a value above U+10FFFF, in the output"
            )),
            (None, None) => None,
        };
        if let Some(shows) = shows {
            witness(
                SecurityClass::AboveMaxAccepted,
                shows,
                vec![answers.input(&ABOVE_MAX)],
            );
        }
    }
    if answers.scalars(&CESU8_PAIR) == Some(&[0x1F600][..])
        && answers.scalars(&FOUR_BYTE) == Some(&[0x1F600][..])
    {
        witness(
            SecurityClass::SurrogatesAccepted,
            "the CESU-8 pair `ED A0 BD ED B8 80` and `F0 9F 98 80` both decode to U+1F600: a second spelling of the same character".into(),
            vec![answers.input(&CESU8_PAIR), answers.input(&FOUR_BYTE)],
        );
    } else if let Some(decoded) = answers.scalars(&LONE_SURROGATE) {
        if let Some(s) = decoded.iter().find(|s| (0xD800..=0xDFFF).contains(*s)) {
            witness(
                SecurityClass::SurrogatesAccepted,
                format!(
                    "`ED A0 80` decodes to the surrogate U+{s:04X}: ill-formed UTF-16 downstream"
                ),
                vec![answers.input(&LONE_SURROGATE)],
            );
        }
    }
    Assessment {
        witnesses,
        variant: recognise_variant(&answers),
    }
}

fn recognise_variant(answers: &Answers) -> Option<Variant> {
    let nul_overlong = answers.accepts_as(&NUL_OVERLONG, &[0]);
    let pair = answers.accepts_as(&CESU8_PAIR, &[0x1F600]);
    let four_byte = answers.accepts_as(&FOUR_BYTE, &[0x1F600]);
    let lone = answers.accepts_as(&LONE_SURROGATE, &[0xD800]);
    let rejects_above_max = answers.rejects(&ABOVE_MAX);
    if nul_overlong && pair && answers.rejects(&FOUR_BYTE) && rejects_above_max {
        return Some(Variant {
            name: "modified-utf-8",
            description: "Modified UTF-8 (Java DataInput.readUTF / JNI): U+0000 as C0 80, supplementary characters as CESU-8 surrogate pairs, no 4-byte forms",
            evidence: vec![
                "C0 80 accepted as U+0000".into(),
                "ED A0 BD ED B8 80 accepted as U+1F600".into(),
                "F0 9F 98 80 rejected".into(),
            ],
        });
    }
    if pair && answers.rejects(&NUL_OVERLONG) && answers.rejects(&FOUR_BYTE) && rejects_above_max {
        return Some(Variant {
            name: "cesu-8",
            description: "CESU-8 (Unicode Technical Report #26): supplementary characters as surrogate pairs of 3-byte sequences, no 4-byte forms",
            evidence: vec![
                "ED A0 BD ED B8 80 accepted as U+1F600".into(),
                "F0 9F 98 80 rejected".into(),
                "C0 80 rejected".into(),
            ],
        });
    }
    if lone && four_byte && !pair && answers.rejects(&NUL_OVERLONG) && rejects_above_max {
        return Some(Variant {
            name: "wtf-8",
            description: "WTF-8: UTF-8 extended to unpaired surrogates; a surrogate pair must use the 4-byte form",
            evidence: vec![
                "ED A0 80 accepted as U+D800".into(),
                "F0 9F 98 80 accepted as U+1F600".into(),
                "ED A0 BD ED B8 80 not accepted as U+1F600".into(),
                "C0 80 rejected".into(),
            ],
        });
    }
    None
}
