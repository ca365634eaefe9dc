//! The fast encoder (`fast::encode_utf16`, `encode_utf16_lossy`, `encode_utf32`) on every
//! available backend, against the reference encoder (the strict forms: bytes, and the
//! error's position and kind) and Rust std (`String::from_utf16`, `from_utf16_lossy`,
//! `char::from_u32`):
//!
//! * every scalar value, as UTF-16 and as UTF-32, inside text of each width;
//! * lone high and low surrogates, reversed pairs and split pairs at every offset of
//!   the 8-lane steps, the 32-unit steps of the AVX-512 kernel and the 64-element ASCII
//!   blocks, in text of each width;
//! * every non-scalar `u32` class (surrogates, U+110000.., above 0x1FFFFF) at every
//!   offset;
//! * random sequences with planted surrogates.
//!
//! The quick forms run in `cargo test`; the exhaustive ones are `#[ignore]`d and run by
//! `.ci/run` in release mode.

use utf8conf::fast::{self, Backend};
use utf8conf::reference::Reference;

use super::Rng;

/// Checks the three encoders of `backend` on `units` against the reference and std.
fn check_utf16(backend: Backend, units: &[u16]) {
    let reference = Reference::rfc3629().encode_utf16(units);
    let mut out = String::from("#");
    let result = fast::encode_utf16_with(backend, units, &mut out).unwrap();
    match (&reference, result) {
        (Ok(bytes), Ok(())) => assert_eq!(out.as_bytes()[1..], bytes[..], "{backend} {units:04X?}"),
        (Err(expected), Err(error)) => {
            assert_eq!(error, *expected, "{backend} {units:04X?}");
            let prefix = String::from_utf16(&units[..error.position]).unwrap();
            assert_eq!(out[1..], prefix, "{backend} prefix of {units:04X?}");
        }
        (expected, got) => panic!("{backend} {units:04X?}: {got:?}, reference {expected:?}"),
    }
    assert_eq!(reference.is_ok(), String::from_utf16(units).is_ok());
    let mut lossy = String::from("#");
    fast::encode_utf16_lossy_with(backend, units, &mut lossy).unwrap();
    assert_eq!(
        lossy[1..],
        String::from_utf16_lossy(units),
        "{backend} lossy {units:04X?}"
    );
}

/// Checks `backend`'s UTF-32 encoder on `points` against the reference and std.
fn check_utf32(backend: Backend, points: &[u32]) {
    let reference = Reference::rfc3629().encode_utf32(points);
    let mut out = String::from("#");
    let result = fast::encode_utf32_with(backend, points, &mut out).unwrap();
    let std_prefix: String = points.iter().map_while(|&p| char::from_u32(p)).collect();
    match (&reference, result) {
        (Ok(bytes), Ok(())) => assert_eq!(out.as_bytes()[1..], bytes[..], "{backend} {points:X?}"),
        (Err(expected), Err(error)) => {
            assert_eq!(error, *expected, "{backend} {points:X?}");
            assert_eq!(std_prefix.chars().count(), error.position);
        }
        (expected, got) => panic!("{backend} {points:X?}: {got:?}, reference {expected:?}"),
    }
    assert_eq!(out[1..], std_prefix, "{backend} {points:X?}");
}

/// Background text of each width: ASCII, 2-byte, 3-byte, 4-byte (a pair), mixed.
const BACKGROUNDS: [&str; 5] = [
    "a",
    "\u{E9}",
    "\u{4E2D}",
    "\u{1F600}",
    "a\u{E9}\u{4E2D}\u{1F600}b",
];

/// `len` code units of `background` repeated (a pair may be cut at the end).
fn units_of(background: &str, len: usize) -> Vec<u16> {
    background.encode_utf16().cycle().take(len).collect()
}

/// What is planted in the text: alone, the ill-formed sequences; and a pair.
const PLANTS: [&[u16]; 6] = [
    &[0xD800],
    &[0xDBFF],
    &[0xDC00],
    &[0xDFFF],
    &[0xDC00, 0xD800],
    &[0xD83D, 0xDE00],
];

/// Plants each of [`PLANTS`] at each offset in `offsets` of 160-unit texts.
fn planted_surrogates(offsets: impl Iterator<Item = usize> + Clone) {
    for backend in Backend::available() {
        for background in BACKGROUNDS {
            for plant in PLANTS {
                for offset in offsets.clone() {
                    let mut units = units_of(background, 160);
                    units[offset..offset + plant.len()].copy_from_slice(plant);
                    check_utf16(backend, &units);
                    // Also with the text ending right after the plant.
                    check_utf16(backend, &units[..offset + plant.len()]);
                }
            }
        }
    }
}

#[test]
fn surrogates_at_every_offset_of_the_first_blocks() {
    planted_surrogates(0..80);
}

#[test]
#[ignore = "long sweep (every offset 0..158): .ci/run runs it in release mode with --include-ignored"]
fn surrogates_at_every_offset() {
    planted_surrogates(0..158);
}

/// Values that are not scalar values, one per class and edge.
const NOT_SCALARS: [u32; 7] = [
    0xD800,
    0xDBFF,
    0xDC00,
    0xDFFF,
    0x11_0000,
    0x1F_FFFF,
    u32::MAX,
];

#[test]
fn utf32_errors_and_supplementary_values_at_every_offset() {
    for backend in Backend::available() {
        for background in BACKGROUNDS {
            let text: Vec<u32> = background
                .chars()
                .map(u32::from)
                .cycle()
                .take(150)
                .collect();
            for planted in NOT_SCALARS.into_iter().chain([0x1_0000, 0x10_FFFF, 0xFFFF]) {
                for offset in 0..140 {
                    let mut points = text.clone();
                    points[offset] = planted;
                    check_utf32(backend, &points);
                }
            }
        }
    }
}

/// Every `stride`-th scalar value, at each of the 32 lanes of a step (of the AVX-512
/// kernel; 4 times each of the 8 lanes of the 16-byte one) and in each background; and
/// the run of all of them as one text.
fn scalars(stride: usize) {
    let all: Vec<char> = (0..=0x10_FFFFu32)
        .step_by(stride)
        .filter_map(char::from_u32)
        .collect();
    for backend in Backend::available() {
        let text: String = all.iter().collect();
        let units: Vec<u16> = text.encode_utf16().collect();
        let points: Vec<u32> = all.iter().map(|&c| u32::from(c)).collect();
        let mut out = String::new();
        fast::encode_utf16_with(backend, &units, &mut out)
            .unwrap()
            .unwrap();
        assert!(out == text, "{backend}: all scalars as UTF-16");
        out.clear();
        fast::encode_utf32_with(backend, &points, &mut out)
            .unwrap()
            .unwrap();
        assert!(out == text, "{backend}: all scalars as UTF-32");
        for background in BACKGROUNDS {
            // Whole characters of the background around the scalar, and `lane` ASCII
            // letters before it, so that it falls on each lane of a kernel step.
            let around = background.repeat(32 / background.len() + 1);
            for &c in &all {
                let lane = c as usize % 32;
                let text = format!("{around}{}{c}{around}", "a".repeat(lane));
                let units: Vec<u16> = text.encode_utf16().collect();
                check_utf16(backend, &units);
                let points: Vec<u32> = text.chars().map(u32::from).collect();
                check_utf32(backend, &points);
            }
        }
    }
}

#[test]
fn every_97th_scalar_in_each_lane() {
    scalars(97);
}

#[test]
#[ignore = "long sweep (1,112,064 scalars per backend and background): .ci/run runs it in release mode with --include-ignored"]
fn every_scalar_in_each_lane() {
    scalars(1);
}

#[test]
#[ignore = "long sweep (every u16 at 16 offsets, u32 above U+10FFFF): .ci/run runs it in release mode with --include-ignored"]
fn every_code_unit_and_non_scalar_classes() {
    for backend in Backend::available() {
        for background in BACKGROUNDS {
            let text = units_of(background, 72);
            for unit in 0..=u16::MAX {
                // Each of the 8 lanes of the 16-byte kernel twice; in the 32-unit steps,
                // both sides of the boundary between their 16-lane halves and between
                // two steps.
                for offset in (12..20).chain(28..36) {
                    let mut units = text.clone();
                    units[offset] = unit;
                    check_utf16(backend, &units);
                }
            }
        }
        let above = (0x11_0000..=0x20_0000u32).chain((0x20_0000..=u32::MAX).step_by(4099));
        for value in above {
            check_utf32(
                backend,
                &[0x41; 9].iter().copied().chain([value]).collect::<Vec<_>>(),
            );
        }
    }
}

#[test]
fn random_sequences_with_planted_surrogates() {
    let mut rng = Rng(0x5EED_E4C0_DE00_0001);
    let pick = |rng: &mut Rng| -> u16 {
        match rng.below(10) {
            0..=3 => rng.below(0x80) as u16,
            4..=5 => 0x80 + rng.below(0x780) as u16,
            6..=7 => 0xE000 + rng.below(0x2000) as u16,
            8 => 0xD800 + rng.below(0x800) as u16,
            _ => 0x800 + rng.below(0xD000) as u16,
        }
    };
    for backend in Backend::available() {
        for _ in 0..300 {
            let len = rng.below(300);
            let units: Vec<u16> = (0..len).map(|_| pick(&mut rng)).collect();
            check_utf16(backend, &units);
            let points: Vec<u32> = units.iter().map(|&u| u32::from(u)).collect();
            check_utf32(backend, &points);
        }
    }
}

#[test]
fn public_encoders_use_an_available_backend() {
    let units: Vec<u16> = "d\u{E9}j\u{E0} \u{4E2D}\u{1F600}"
        .repeat(40)
        .encode_utf16()
        .collect();
    let expected = String::from_utf16(&units).unwrap();
    assert_eq!(fast::encode_utf16(&units).unwrap(), expected);
    assert_eq!(fast::encode_utf16_lossy(&units), expected);
    let points: Vec<u32> = expected.chars().map(u32::from).collect();
    assert_eq!(fast::encode_utf32(&points).unwrap(), expected);
    let mut out = String::from("x");
    fast::encode_utf16_lossy_into(&[0xDC00], &mut out);
    fast::encode_utf16_into(&units[..2], &mut out).unwrap();
    fast::encode_utf32_into(&[0x1F600], &mut out).unwrap();
    assert_eq!(out, "x\u{FFFD}d\u{E9}\u{1F600}");
}
