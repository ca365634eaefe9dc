//! The planted decoders whose diagnosis is exact stay exact, and every finding is true
//! of its witness.
//!
//! "Exact" is the measurement of [`super::baseline`]: as many findings as mechanisms,
//! none missed, merged or split, each finding matched to a mechanism of its own. The
//! whole list takes about a minute in the test build, so a quick subset (one decoder of
//! each shape: several bugs, a lossy-only interface with its policy, a bug behind a bug,
//! a position condition) runs always and the whole list under `--include-ignored`.
//!
//! "True of its witness" is checked on what can be checked mechanically: the witness
//! departs from RFC 3629; for a finding of the learned machine, the decoder's own step
//! outputs on the witness (asked again, not read off the machine) depart at its last
//! byte with the behaviour the title names, and a policy's witness decodes to the
//! policy's scalars; and each input category the finding marks as failing is the
//! category of a unit of an input that departs (the witness or a manifestation).

use super::baseline::measure;
use super::tests::{findings_and_model, inputs};
use super::*;
use crate::decoders::reference::ReferenceDecoder;
use crate::finding::Finding;
use crate::model::conventions::{Convention, ConventionDecoder};
use crate::model::difference::agree;
use crate::model::mechanism::behaviour::behaviour;
use crate::model::oracle::Oracle;
use crate::model::output::Strict;

/// The real-world planted decoders that give exactly their findings (measured by
/// `diagnosis_baseline`; docs/FINDINGS.md's table).
const EXACT: &[&str] = &[
    "planted-cborg-short-strings",
    "planted-feross-buffer",
    "planted-libbson-legacy",
    "planted-smlnj-utf8-getu",
    "planted-simd-json-block-end",
    "planted-simdjson-fallback-overlong-4",
    "planted-expat-truncated-read",
    "planted-gmssl-asn1-utf8",
    "planted-libtorrent-sequence-length",
    "planted-ugorji-go-codec",
    "planted-ct-latin1-fallback",
    "planted-mysql-utf8mb3",
    "planted-postgres-nul",
    "planted-go-decoderune",
    "planted-go-tovalidutf8",
    "planted-dotnet-framework",
    "planted-dotnet7-streamreader",
    "planted-dotnet-binaryreader",
    "planted-python-surrogateescape",
    "planted-python-surrogatepass",
    "planted-python-ignore",
    "planted-whatwg-utf8-decode",
    "planted-perl-lax-utf8",
    "planted-perl-strict-ffff",
    "planted-bionic-mbrtoc32",
    "planted-freebsd-citrus-surrogates",
    "planted-msvc-mbrtowc",
    "planted-iconv-ignore",
    "planted-libtomcrypt-der-utf8",
    "planted-msgpack-js-truncation",
    "planted-json-voorhees",
    "planted-jspb-readstring",
    "planted-mysql-utf8mb3-nonstrict",
    "planted-postgres-cve-2006-2313",
    "planted-python-utf8-sig",
    "planted-lexbor-decode-valid-single",
    "planted-iis-cve-2000-0884",
    "planted-tomcat-cve-2008-2938",
    "planted-java-cve-2008-5351",
    "planted-openssl-utf8-getc",
    "planted-yajl-validate-utf8",
    "planted-tcl86-utf8",
    "planted-lua53-utf8",
    "planted-lua54-lax",
    "planted-python2-utf8",
    "planted-go-encoding-json",
    "planted-glib-utf8-validate-len",
    "planted-windows-xp-multibytetowidechar",
    "planted-java-modified-utf8",
    "planted-libxml2-xmlcheckutf8",
    "planted-chromium-isstringutf8",
    "planted-haskell-utf8-string",
    "planted-nim-validateutf8",
    "planted-go10-utf8",
    "planted-cesu8-utr26",
    "planted-swift-string-cstring",
    "planted-node-stringdecoder-write",
    "planted-simdjson-ff-at-block-end",
];

/// One of each shape, a few seconds in the test build.
const QUICK: &[&str] = &[
    "planted-perl-lax-utf8",
    "planted-ct-latin1-fallback",
    "planted-dotnet-binaryreader",
    // A position condition learned as a machine of its own; simd-json's block end is
    // the other, and takes three times as long.
    "planted-simdjson-ff-at-block-end",
];

fn not_exact(names: &[&str]) -> Vec<String> {
    let inputs = inputs();
    names
        .iter()
        .map(|name| measure(entry(name).expect("in the catalogue"), &inputs))
        .filter(|row| !row.exact())
        .map(|row| row.summary())
        .collect()
}

#[test]
fn a_quick_subset_of_the_exact_decoders_stays_exact() {
    assert!(QUICK.iter().all(|name| EXACT.contains(name)));
    let failures = not_exact(QUICK);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
#[ignore = "about a minute in the test build: every exact decoder of the catalogue"]
fn every_exact_decoder_stays_exact() {
    let failures = not_exact(EXACT);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Whether the decoder's step outputs on `input` depart from the reference's anywhere.
fn departs(decoder: &mut Oracle<'_>, reference: &mut Oracle<'_>, input: &[u8]) -> bool {
    let (ours, theirs) = (decoder.outputs(input), reference.outputs(input));
    ours.iter().zip(&theirs).any(|(a, b)| !agree(*a, *b))
}

/// Why `finding`'s title or categories are not true of its inputs (empty: they are).
fn untrue(planted: &Planted, finding: &Finding) -> Vec<String> {
    let capabilities = planted.capabilities();
    let mut decoder = Oracle::new(planted, capabilities);
    let mut reference = Oracle::new(&ReferenceDecoder, capabilities);
    let witness = crate::hex::parse_hex(&finding.witness_hex).expect("hex witness");
    let mut wrong = Vec::new();
    if !departs(&mut decoder, &mut reference, &witness) {
        wrong.push("the witness does not depart".to_string());
    }
    if let Some(basis) = &finding.model {
        wrong.extend(untrue_behaviour(
            planted,
            basis,
            &witness,
            [&mut decoder, &mut reference],
        ));
    }
    let mut inputs = vec![witness];
    inputs.extend(
        finding
            .manifestations
            .iter()
            .map(|m| crate::hex::parse_hex(&m.input_hex).expect("hex input")),
    );
    for &category in &finding.categories {
        let failing = inputs.iter().any(|input| {
            departs(&mut decoder, &mut reference, input) && shows(planted, input, category)
        });
        if !failing {
            wrong.push(format!("no failing input is {}", category.as_str()));
        }
    }
    wrong
}

/// Why a finding of the machine does not show its behaviour on its witness.
fn untrue_behaviour(
    planted: &Planted,
    basis: &crate::finding::ModelBasis,
    witness: &[u8],
    [decoder, reference]: [&mut Oracle<'_>; 2],
) -> Vec<String> {
    let mut wrong = Vec::new();
    let (ours, theirs) = (decoder.outputs(witness), reference.outputs(witness));
    let (mut last, mut expected) = (
        *ours.last().expect("a witness"),
        *theirs.last().expect("a witness"),
    );
    // A lossy-only decoder's mechanisms other than its silence are read off its scalars
    // alone, as its machine is (`model::model_report`).
    if !planted.capabilities().valid_up_to && basis.mechanism != "convention never-reports-errors" {
        last.strict = Strict::Valid;
        expected.strict = Strict::Valid;
    }
    if agree(last, expected) {
        wrong.push("the witness's last byte does not depart".to_string());
    } else if behaviour(expected, last) != basis.behaviour {
        wrong.push(format!(
            "the last byte shows {:?}, not {:?}",
            behaviour(expected, last),
            basis.behaviour
        ));
    }
    if basis.input != crate::model::title::category(witness) {
        wrong.push(format!("the witness is not {:?}", basis.input));
    }
    let convention = Convention::ALL
        .into_iter()
        .find(|c| basis.mechanism == format!("convention {}", c.name()));
    if let Some(convention) = convention.filter(|_| basis.policy) {
        let theirs = ConventionDecoder::new(convention)
            .decode(witness)
            .expect("decodes");
        let ours = planted.decode(witness).expect("decodes");
        if ours.scalars != theirs.scalars {
            wrong.push(format!("the witness is not decoded {}", convention.name()));
        }
    }
    wrong
}

/// Whether `input`, on which `planted` departs, is of `category`: a unit of those bytes
/// for a category of bytes; for a category of what a decoder does, that behaviour as
/// the taxonomy defines it.
fn shows(planted: &Planted, input: &[u8], category: Category) -> bool {
    let ours = planted.decode(input).expect("decodes");
    let theirs = ReferenceDecoder.decode(input).expect("decodes");
    let (our, their) = (
        ours.scalars.clone().unwrap_or_default(),
        theirs.scalars.clone().unwrap_or_default(),
    );
    let well_formed = theirs.valid;
    // A well-formed character of the input that is not among the decoder's scalars, in
    // order (changed or lost).
    let mut rest = our.iter();
    let lost = their
        .iter()
        .filter(|&&s| s != crate::outcome::REPLACEMENT)
        .any(|s| !rest.any(|o| o == s));
    match category {
        // Well-formed text rejected: the whole input, or a prefix before the first error.
        Category::ValidRejected => {
            !ours.valid && (well_formed || ours.valid_up_to < theirs.valid_up_to)
        }
        // Rejected by the verdict, or, where there is none (a lossy-only decoder), by a
        // U+FFFD given in the noncharacter's place.
        Category::NoncharacterRejected => {
            let replaced = !their.contains(&crate::outcome::REPLACEMENT)
                && our.contains(&crate::outcome::REPLACEMENT);
            well_formed
                && (!ours.valid || replaced)
                && their.iter().any(|&s| crate::taxonomy::is_noncharacter(s))
        }
        Category::ValidMisdecoded => {
            ours.scalars.is_some() && (lost || (well_formed && our != their))
        }
        Category::BomStripped => {
            well_formed && input.starts_with(&[0xEF, 0xBB, 0xBF]) && our[..] == their[1..]
        }
        Category::OutputCutShort => our.len() < their.len() && their.starts_with(&our),
        Category::CharacterSwallowed => {
            !well_formed
                && their
                    .iter()
                    .any(|&s| s != crate::outcome::REPLACEMENT && !our.contains(&s))
        }
        Category::OffsetMiscounted => {
            !well_formed && !ours.valid && ours.valid_up_to != theirs.valid_up_to
        }
        bytes => (0..input.len()).any(|at| crate::taxonomy::category_at(input, at) == Some(bytes)),
    }
}

fn untrue_titles(entries: impl Iterator<Item = &'static Entry>) -> Vec<String> {
    let inputs = inputs();
    let mut failures = Vec::new();
    for entry in entries {
        let planted = Planted::new(entry.name, entry.bugs);
        for finding in findings_and_model(&planted, &inputs).0 {
            for why in untrue(&planted, &finding) {
                failures.push(format!(
                    "{}: \"{}\" [{}]: {why}",
                    entry.name, finding.title, finding.witness_hex
                ));
            }
        }
    }
    failures
}

#[test]
fn each_title_is_true_of_its_witness_on_a_quick_subset() {
    let failures = untrue_titles(
        QUICK
            .iter()
            .map(|name| entry(name).expect("in the catalogue")),
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
#[ignore = "about a minute in the test build: every planted decoder of the catalogue"]
fn each_title_is_true_of_its_witness() {
    let failures = untrue_titles(catalogue());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
