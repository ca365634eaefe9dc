//! `utf8conf decode --decoder NAME (--hex HEX | --file PATH | -)`: one outcome as JSON;
//! `--lib PATH --symbol NAME` instead of `--decoder` for a C library (as for `check --lib`,
//! in a worker process, so a crash is reported rather than taken).
//!
//! The outcome is serialised straight to stdout as it is walked (no JSON tree in
//! memory: a tree for 100 MB of random bytes took over 9 GB), and the input is read up
//! to [`MAX_INPUT_BYTES`]. The reference decoder's outcome is not even built: its
//! scalars, error units and explanations are produced one at a time while they are
//! written, so memory is the input and a buffer (a built outcome of 100 MB of random
//! bytes holds tens of millions of error units). Other decoders return their outcome
//! whole, which is then streamed. So an endless input (`/dev/zero`, a stream that never ends)
//! stops with a clear error instead of eating all memory.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use serde::{Serialize, Serializer};

use super::CliError;
use crate::decoders::{self, Decoder};
use crate::engine::check::REFERENCE_NAME;
use crate::hex::parse_hex;
use crate::outcome::{ErrorUnit, Outcome, REPLACEMENT};
use crate::reference::{ErrorSpan, Reference, Step};
use crate::taxonomy;

/// The largest input `decode` accepts: 256 MiB.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Arguments of `utf8conf decode`.
#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// The decoder to run (see `utf8conf decoders`).
    #[arg(long, default_value = "reference", conflicts_with = "lib")]
    decoder: String,
    /// A C library implementing include/utf8conf.h, instead of a built-in decoder.
    #[arg(long, value_name = "PATH", requires = "symbol")]
    lib: Option<PathBuf>,
    /// The exported decode function of --lib.
    #[arg(long, value_name = "NAME", requires = "lib")]
    symbol: Option<String>,
    /// The input as hex bytes, e.g. "61 F1 80 80".
    #[arg(long, conflicts_with_all = ["file", "stdin"])]
    hex: Option<String>,
    /// Read the input from a file (at most 256 MiB).
    #[arg(long, conflicts_with = "stdin")]
    file: Option<PathBuf>,
    /// Read the input from standard input (at most 256 MiB).
    #[arg(value_name = "-", value_parser = clap::builder::PossibleValuesParser::new(["-"]))]
    stdin: Option<String>,
    /// With the reference decoder: add each error unit's explanation in the grammar's terms.
    #[arg(long)]
    explain: bool,
}

/// Runs `utf8conf decode`.
pub fn run(args: DecodeArgs) -> Result<u8, CliError> {
    let library = args.lib.as_deref().zip(args.symbol.as_deref());
    let decoder = chosen_decoder(&args.decoder, library)?;
    let input = if let Some(text) = &args.hex {
        parse_hex(text)?
    } else if let Some(path) = &args.file {
        let name = path.display().to_string();
        let file =
            std::fs::File::open(path).map_err(|e| CliError(format!("cannot read {name}: {e}")))?;
        read_bounded(file, &name, MAX_INPUT_BYTES)?
    } else if args.stdin.is_some() {
        read_bounded(std::io::stdin().lock(), "standard input", MAX_INPUT_BYTES)?
    } else {
        return Err(CliError(
            "give the input with --hex HEX, --file PATH or - (stdin)".into(),
        ));
    };
    let reference = Reference::rfc3629();
    let explanations = args.explain.then_some(Explanations {
        reference,
        input: &input,
    });
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = if decoder.name() == REFERENCE_NAME {
        let shown = StreamedReference {
            header: &Outcome::from_strict(REFERENCE_NAME, reference.first_error(&input)),
            scalars: Scalars {
                reference,
                input: &input,
            },
            errors: Errors {
                reference,
                input: &input,
            },
            explanations,
        };
        serde_json::to_writer(&mut out, &shown)
    } else {
        let outcome = decoder
            .decode(&input)
            .map_err(|failure| CliError(failure.to_string()))?;
        let shown = Shown {
            outcome: &outcome,
            explanations,
        };
        serde_json::to_writer(&mut out, &shown)
    };
    written
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush())
        .map_err(|e| CliError(format!("cannot write to standard output: {e}")))?;
    Ok(0)
}

/// The decoder a command line names: `library` (`--lib PATH --symbol NAME`, started in
/// its worker process) when given, else the built-in decoder called `name`.
pub(super) fn chosen_decoder(
    name: &str,
    library: Option<(&Path, &str)>,
) -> Result<Box<dyn Decoder>, CliError> {
    if let Some((path, symbol)) = library {
        return library_decoder(path, symbol);
    }
    decoders::by_name(name).ok_or_else(|| {
        CliError(format!(
            "unknown decoder '{}' (known: {})",
            crate::sanitize::single_line(name, 100),
            decoders::builtin_names().join(", ")
        ))
    })
}

#[cfg(unix)]
fn library_decoder(path: &Path, symbol: &str) -> Result<Box<dyn Decoder>, CliError> {
    use crate::native::{NativeConfig, NativeDecoder};
    let config = NativeConfig::new(path.to_path_buf(), symbol.to_string())
        .map_err(|e| CliError(format!("cannot find the utf8conf executable: {e}")))?;
    let native = NativeDecoder::start(config).map_err(|e| CliError(e.0))?;
    Ok(Box::new(native))
}

#[cfg(not(unix))]
fn library_decoder(_path: &Path, _symbol: &str) -> Result<Box<dyn Decoder>, CliError> {
    Err(CliError("--lib is supported on Unix only".into()))
}

/// Reads all of `source`, failing beyond `limit` bytes.
fn read_bounded(source: impl Read, name: &str, limit: u64) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    source
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError(format!("cannot read {name}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(CliError(format!(
            "{name} is larger than decode's limit of {limit} bytes"
        )));
    }
    Ok(bytes)
}

/// The printed object: the outcome's fields, then `explanations` when asked for. Both
/// serialise as they are walked (`flatten` forwards the outcome's fields one by one).
#[derive(Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    outcome: &'a Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanations: Option<Explanations<'a>>,
}

/// The reference's outcome, written as it is decoded: the same JSON as
/// `Reference::outcome` serialised (`decoder`, `valid`, `valid_up_to`, `error_len`, then
/// `scalars` and `errors`).
#[derive(Serialize)]
struct StreamedReference<'a> {
    #[serde(flatten)]
    header: &'a Outcome,
    scalars: Scalars<'a>,
    errors: Errors<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanations: Option<Explanations<'a>>,
}

/// The reference's scalars of `input`, U+FFFD per error unit, one at a time.
struct Scalars<'a> {
    reference: &'a Reference,
    input: &'a [u8],
}

impl Serialize for Scalars<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.reference.steps(self.input).map(|step| match step {
            Step::Char(scalar) => scalar,
            Step::Error(_) => REPLACEMENT,
        }))
    }
}

/// The reference's error units of `input`, one at a time.
struct Errors<'a> {
    reference: &'a Reference,
    input: &'a [u8],
}

impl Serialize for Errors<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            error_spans(self.reference, self.input).map(|span| ErrorUnit {
                offset: span.offset,
                len: span.len,
                category: taxonomy::category_at(self.input, span.offset),
            }),
        )
    }
}

/// The reference's explanation of each error unit of `input`, one at a time.
#[derive(Clone, Copy)]
struct Explanations<'a> {
    reference: &'a Reference,
    input: &'a [u8],
}

impl Serialize for Explanations<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            error_spans(self.reference, self.input)
                .map(|span| self.reference.explain(self.input, &span)),
        )
    }
}

fn error_spans<'a>(
    reference: &'a Reference,
    input: &'a [u8],
) -> impl Iterator<Item = ErrorSpan> + 'a {
    reference.steps(input).filter_map(|step| match step {
        Step::Error(span) => Some(span),
        Step::Char(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed reference outcome is byte for byte the serialised built one.
    #[test]
    fn the_streamed_reference_outcome_is_the_built_one() {
        let reference = Reference::rfc3629();
        for input in [
            &b""[..],
            b"a",
            b"\xE0\x80A",
            b"a\xF1\x80\x80\xE1\x80\xC2b",
            b"\xE4\xBD",
            b"\xEF\xBB\xBF\xF4\x90\x80\x80\xED\xA0\x80",
        ] {
            let built = serde_json::to_string(&reference.outcome(REFERENCE_NAME, input)).unwrap();
            let streamed = serde_json::to_string(&StreamedReference {
                header: &Outcome::from_strict(REFERENCE_NAME, reference.first_error(input)),
                scalars: Scalars { reference, input },
                errors: Errors { reference, input },
                explanations: None,
            })
            .unwrap();
            assert_eq!(streamed, built, "{input:02X?}");
        }
    }

    #[test]
    fn endless_input_stops_at_the_limit() {
        let error = read_bounded(std::io::repeat(0), "endless", 1000).unwrap_err();
        assert_eq!(
            error.0,
            "endless is larger than decode's limit of 1000 bytes"
        );
        assert_eq!(read_bounded(&b"abc"[..], "three", 3).unwrap(), b"abc");
    }
}
