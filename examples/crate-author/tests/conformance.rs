//! utf8-decode under `utf8conf check`'s grading, in `cargo test`. The full report is
//! written to target/utf8conf/utf8-decode/conformance.{json,md,html}.

use std::path::Path;

use utf8_decode_conformance::{known_departures, Utf8DecodeCrate};

#[test]
fn utf8_decode_departs_exactly_where_known() {
    let report = utf8conf::author::check(&Utf8DecodeCrate);
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/utf8conf/utf8-decode");
    report.write(&directory).expect("report written");
    println!("report: {}", directory.join("conformance.md").display());
    known_departures().assert(&report);

    // The report's findings replay in this test, as each finding's `reproduce` line says:
    // all are still there (a fix would move them to `gone`).
    let replay = utf8conf::author::reproduce(directory.join("conformance.json"), &Utf8DecodeCrate)
        .expect("the report just written reads back");
    assert_eq!(
        replay.reproduced.len(),
        report.findings.len(),
        "{replay:#?}"
    );
    assert!(replay.gone.is_empty(), "{:#?}", replay.gone);
}
