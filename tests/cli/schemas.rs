//! The JSON Schemas in `schemas/` against real output: a run of the engine (through the
//! library and through the binary) writes reports and a summary, and every file must
//! validate. The schemas must use only the keywords the validator implements (that they
//! are valid JSON Schema documents is checked by `.ci/validate_formats.py schemas`), and
//! must reject what the contract forbids (so that validation is not vacuous).

use crate::common::{assert_valid, read_json, schema_validator as schema};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use utf8conf::corpus::{Input, Origin};
use utf8conf::decoders;
use utf8conf::engine::budget::Budget;
use utf8conf::engine::{Engine, RunOptions};
use utf8conf::hex::parse_hex;

fn out_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("schemas-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Inputs that make the mutants depart in several ways, from every kind of origin.
fn corpus() -> Vec<Input> {
    let cases = [
        "61 ED A0 BD ED B8 80 62",
        "ED A0 80 ED B0 80 ED AF",
        "41 FF",
        "F4 91 92 93 FF 41 80 BF 42",
        "EF BB BF 41",
        "",
        "E4 BD",
        "C0 80",
    ];
    let mut inputs = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let bytes = parse_hex(case).unwrap();
        let origin = match index % 4 {
            0 => Origin::Vector {
                file: "hand.toml".into(),
                id: format!("hand-{index}"),
            },
            1 => Origin::Generator {
                name: "hand".into(),
                seed: 3,
                index: index as u64,
            },
            2 => Origin::Fuzz {
                target: "differential".into(),
            },
            _ => Origin::User {
                source: "test".into(),
            },
        };
        inputs.push(Input { bytes, origin });
    }
    inputs
}

#[test]
fn engine_output_validates_against_the_schemas() {
    let divergence = schema("divergence.schema.json");
    let summary = schema("summary.schema.json");
    let dir = out_dir("engine");
    let mut decoders = decoders::builtin();
    decoders.extend(decoders::mutants::all());
    let engine = Engine::new(decoders);
    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(100);
    let result = engine.run(corpus().into_iter(), &options).unwrap();
    // One report per finding: the CESU-8 pairs and the panic on FF.
    assert_eq!(
        result.reports.len(),
        2,
        "the mutants diverge: {:?}",
        result.summary.reports
    );
    assert!(result.reports.iter().any(|r| r.failure.is_some()));

    assert_valid(
        &summary,
        &read_json(&result.run_dir.join("summary.json")),
        "summary.json",
    );
    for id in &result.summary.reports {
        let path = utf8conf::engine::report_path(&result.run_dir, id);
        assert_valid(&divergence, &read_json(&path), &path.display().to_string());
    }
}

#[test]
fn the_binarys_output_validates_against_the_schemas() {
    let divergence = schema("divergence.schema.json");
    let summary = schema("summary.schema.json");
    let dir = out_dir("binary");
    let status = Command::new(env!("CARGO_BIN_EXE_utf8conf"))
        .args([
            "run",
            "--decoders",
            "std,bstr,mutant-cesu8",
            "--budget",
            "2000i",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(status.status.code(), Some(1), "the CESU-8 mutant diverges");
    let run_dir = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .expect("one run directory")
        .unwrap()
        .path();
    let written = read_json(&run_dir.join("summary.json"));
    assert_valid(&summary, &written, "summary.json");
    // The run also grades the built-in encoders against the reference encoder: none
    // departs.
    let encoders = &written["encoders"];
    assert_eq!(encoders["divergent_inputs"], 0);
    assert!(encoders["encoders"].as_array().unwrap().len() >= 4);
    let reports = written["reports"].as_array().unwrap();
    assert!(!reports.is_empty());
    for id in reports {
        let path = run_dir
            .join("divergences")
            .join(format!("{}.json", id.as_str().unwrap()));
        assert_valid(&divergence, &read_json(&path), &path.display().to_string());
    }
}

/// A change that breaks the contract.
type Damage = Box<dyn Fn(&mut Value)>;

#[test]
fn the_schemas_reject_what_the_contract_forbids() {
    let divergence = schema("divergence.schema.json");
    let summary = schema("summary.schema.json");
    let dir = out_dir("negative");
    let engine = Engine::new(vec![decoders::by_name("mutant-cesu8").unwrap()]);
    let mut options = RunOptions::new(&dir);
    options.budget = Budget::Inputs(100);
    let result = engine.run(corpus().into_iter(), &options).unwrap();
    let report = serde_json::to_value(&result.reports[0]).unwrap();
    assert!(divergence.is_valid(&report));

    let broken: Vec<(&str, Damage)> = vec![
        (
            "no id",
            Box::new(|r| drop(r.as_object_mut().unwrap().remove("id"))),
        ),
        ("bad aspect", Box::new(|r| r["aspect"] = "vibes".into())),
        (
            "bad category",
            Box::new(|r| r["categories"][0] = "mojibake".into()),
        ),
        (
            "lower-case hex",
            Box::new(|r| r["minimized_hex"] = "ed a0".into()),
        ),
        (
            "reference second",
            Box::new(|r| r["decoders"][0] = "std".into()),
        ),
        (
            "invented outcome field",
            Box::new(|r| r["outcomes"]["reference"]["guess"] = 1.into()),
        ),
        (
            "scalar above U+10FFFF",
            Box::new(|r| r["outcomes"]["reference"]["scalars"][0] = 0x110000.into()),
        ),
        (
            "wrong schema",
            Box::new(|r| r["schema"] = "utf8conf/divergence/2".into()),
        ),
    ];
    for (what, damage) in broken {
        let mut damaged = report.clone();
        damage(&mut damaged);
        assert!(!divergence.is_valid(&damaged), "accepted: {what}");
    }

    let written = serde_json::to_value(&result.summary).unwrap();
    assert!(summary.is_valid(&written));
    let mut damaged = written.clone();
    damaged["comparisons"][0]["aspects"]["vibes"] =
        serde_json::json!({"compared": 1, "divergences": 0});
    assert!(!summary.is_valid(&damaged), "accepted an unknown aspect");
    let mut damaged = written;
    damaged["exit_code"] = 2.into();
    assert!(
        !summary.is_valid(&damaged),
        "a written summary never says 2"
    );
}

/// The validator the schema tests rely on (`tests/common/schema.rs`) rejects, keyword by
/// keyword, what the JSON Schema 2020-12 Validation vocabulary says it must, accepts the
/// matching instance, and refuses a schema with a keyword it does not implement.
#[test]
fn the_schema_validator_enforces_each_keyword_it_accepts() {
    use crate::common::schema::Validator;
    use serde_json::json;

    // (schema, an instance it accepts, an instance it rejects)
    let cases = [
        (json!({"type": "integer"}), json!(3), json!(3.5)),
        (json!({"type": ["string", "null"]}), json!(null), json!(1)),
        (json!({"enum": ["a", 1]}), json!(1), json!("b")),
        (json!({"const": {"k": 1}}), json!({"k": 1}), json!({"k": 2})),
        (json!({"minimum": 1, "maximum": 3}), json!(3), json!(4)),
        (json!({"exclusiveMinimum": 0}), json!(0.5), json!(0)),
        (json!({"minLength": 2}), json!("éé"), json!("é")),
        (
            json!({"pattern": "^[0-9A-F]{2}( [0-9A-F]{2})*$"}),
            json!("C0 AF"),
            json!("c0"),
        ),
        (json!({"pattern": "b"}), json!("abc"), json!("ac")),
        (
            json!({"minItems": 1, "maxItems": 2}),
            json!([1]),
            json!([1, 2, 3]),
        ),
        (json!({"uniqueItems": true}), json!([1, 2]), json!([1, 1])),
        (
            json!({"prefixItems": [{"const": "reference"}], "items": {"type": "string"}}),
            json!(["reference", "std"]),
            json!(["reference", 1]),
        ),
        (json!({"contains": {"const": 2}}), json!([1, 2]), json!([1])),
        (json!({"required": ["id"]}), json!({"id": 1}), json!({})),
        (
            json!({"properties": {"a": {"type": "string"}}, "additionalProperties": false}),
            json!({"a": "x"}),
            json!({"a": "x", "b": 1}),
        ),
        (
            json!({"properties": {"a": {"type": "string"}}}),
            json!({"b": 1}),
            json!({"a": 1}),
        ),
        (
            json!({"propertyNames": {"pattern": "^[a-z]+$"}}),
            json!({"ab": 1}),
            json!({"A": 1}),
        ),
        (
            json!({"anyOf": [{"type": "string"}, {"minimum": 5}]}),
            json!(6),
            json!(4),
        ),
        (
            json!({"oneOf": [{"minimum": 1}, {"minimum": 2}]}),
            json!(1),
            json!(3),
        ),
        (
            json!({"allOf": [{"minimum": 1}, {"maximum": 2}]}),
            json!(2),
            json!(3),
        ),
        (json!({"not": {"type": "null"}}), json!(0), json!(null)),
        (
            json!({"$defs": {"hex": {"pattern": "^[0-9A-F]*$"}}, "items": {"$ref": "#/$defs/hex"}}),
            json!(["AF"]),
            json!(["af"]),
        ),
        (json!({"items": false}), json!([]), json!([0])),
    ];
    for (schema, good, bad) in cases {
        let validator = Validator::new(schema.clone()).unwrap();
        assert!(validator.is_valid(&good), "{schema} rejected {good}");
        let errors = validator.errors(&bad);
        assert!(!errors.is_empty(), "{schema} accepted {bad}");
    }
    // Keywords of another instance type pass it.
    let items = Validator::new(json!({"minItems": 3, "required": ["x"]})).unwrap();
    assert!(items.is_valid(&json!("text")));

    for unusable in [
        json!({"if": {"type": "string"}}),
        json!({"properties": {"a": {"minContains": 1}}}),
        json!({"$ref": "#/$defs/missing"}),
        json!({"pattern": "("}),
        json!({"type": "text"}),
        json!({"required": "id"}),
    ] {
        assert!(
            Validator::new(unusable.clone()).is_err(),
            "compiled {unusable}"
        );
    }
}
