//! utf8-decode against utf8conf's RFC 3629 reference, graded like `utf8conf check`. A
//! departure outside the known ones writes findings/<name>-<hash>/conformance.{json,md,html}
//! and stops the run with the input saved.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8_decode_conformance::{known_departures, Utf8DecodeCrate};

fuzz_target!(|data: &[u8]| {
    utf8conf::author::fuzz_one(&Utf8DecodeCrate, data, &known_departures());
});
