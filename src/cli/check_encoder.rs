//! `utf8conf check-encoder`: grade a UTF-8 encoder (built-in or planted) against the
//! reference encoder, and name its policy for surrogates and values above U+10FFFF.

use clap::Args;

use super::CliError;
use crate::corpus::code_units::encoder_inputs;
use crate::diagnosis::encoder::{grade, EncoderGrade};
use crate::encoders;
use crate::report::sanitize;

/// Arguments of `utf8conf check-encoder`.
#[derive(Debug, Args)]
pub struct CheckEncoderArgs {
    /// The encoder to grade (`utf8conf check-encoder --list` names them); every built-in
    /// encoder when omitted.
    #[arg(long)]
    encoder: Option<String>,
    /// Every scalar value and every pair of code units around the surrogates (about 9
    /// million inputs, seconds in a release build) instead of a stride through them.
    #[arg(long)]
    thorough: bool,
    /// Print the grades as JSON instead of text.
    #[arg(long)]
    json: bool,
    /// List the encoders and exit.
    #[arg(long)]
    list: bool,
}

/// Runs `utf8conf check-encoder`: exit 0 when no encoder has a finding, 1 otherwise.
pub fn run(args: CheckEncoderArgs) -> Result<u8, CliError> {
    if args.list {
        let planted = encoders::planted::all();
        for encoder in encoders::builtin().iter().chain(&planted) {
            println!("{:24}  {}", encoder.name(), encoder.description());
        }
        return Ok(0);
    }
    let subjects = match &args.encoder {
        Some(name) => vec![encoders::by_name(name).ok_or_else(|| {
            let known: Vec<String> = encoders::builtin()
                .iter()
                .map(|e| e.name().to_string())
                .collect();
            CliError(format!(
                "unknown encoder '{}'; built-in encoders: {} (--list names the planted ones too)",
                sanitize::single_line(name, 80),
                known.join(", ")
            ))
        })?],
        None => encoders::builtin(),
    };
    let inputs = encoder_inputs(args.thorough);
    let grades: Vec<EncoderGrade> = subjects
        .iter()
        .map(|encoder| grade(encoder.as_ref(), &inputs))
        .collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&grades)?);
    } else {
        for grade in &grades {
            print_grade(grade);
        }
    }
    let any_finding = grades.iter().any(|grade| !grade.findings.is_empty());
    Ok(u8::from(any_finding))
}

fn print_grade(grade: &EncoderGrade) {
    let policy = serde_json::to_value(grade.policy).unwrap_or_default();
    let out_of_range = grade
        .out_of_range_policy
        .map(|policy| serde_json::to_value(policy).unwrap_or_default());
    let findings = grade.findings.len();
    println!(
        "{}: {} input{}, {} finding{}; surrogates: {}{}",
        grade.encoder,
        grade.inputs,
        if grade.inputs == 1 { "" } else { "s" },
        findings,
        if findings == 1 { "" } else { "s" },
        policy.as_str().unwrap_or("?"),
        out_of_range
            .map(|p| format!("; above U+10FFFF: {}", p.as_str().unwrap_or("?")))
            .unwrap_or_default(),
    );
    for finding in &grade.findings {
        let severity = serde_json::to_value(finding.severity).unwrap_or_default();
        println!(
            "  [{}] {} (expected {}; {} input{}; {})",
            severity.as_str().unwrap_or("?"),
            finding.title,
            finding.expected,
            finding.inputs,
            if finding.inputs == 1 { "" } else { "s" },
            finding.citation
        );
    }
}
