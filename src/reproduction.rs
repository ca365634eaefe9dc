//! The commands a report prints to reproduce a finding, for every kind of decoder.
//!
//! A report names its decoder in one of three ways, and the command that shows the
//! decoder's answer on a witness follows from it:
//!
//! - a built-in decoder, by name: `utf8conf decode --decoder NAME --hex HEX`;
//! - a C library (`check --lib`, `exhaustive --lib`), whose report records the command
//!   line flags `["--lib", PATH, "--symbol", NAME]`: `utf8conf decode --lib PATH
//!   --symbol NAME --hex HEX`;
//! - an adapter program (`check --cmd`), by its argv: one protocol frame (4-byte
//!   little-endian length, then the bytes) piped into it, which prints its hello and its
//!   answer.
//!
//! A decoder checked through `utf8conf::author` lives in its author's crate, which no
//! command line can reach; its reports name the library call that replays them instead
//! ([`author_replay`]).

use std::path::Path;

use crate::hex::format_hex;

/// How a report names the decoder it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invocation<'a> {
    /// A built-in decoder (see `utf8conf decoders`).
    BuiltIn(&'a str),
    /// A C library loaded by `--lib PATH --symbol NAME`.
    Library {
        /// The shared library, as it was given on the command line.
        path: &'a str,
        /// The exported decode function.
        symbol: &'a str,
    },
    /// An adapter program, by its argv.
    Program(&'a [String]),
}

impl<'a> Invocation<'a> {
    /// The invocation of a decoder called `name`, run by `command` (a check report's
    /// `command`: `None` for a built-in decoder, the `--lib` flags for a C library,
    /// otherwise an adapter's argv).
    pub fn of(name: &'a str, command: Option<&'a [String]>) -> Invocation<'a> {
        match command {
            None => Invocation::BuiltIn(name),
            Some([flag, path, symbol_flag, symbol])
                if flag == "--lib" && symbol_flag == "--symbol" =>
            {
                Invocation::Library { path, symbol }
            }
            Some(argv) => Invocation::Program(argv),
        }
    }

    /// The flags that select this decoder on `utf8conf decode` and `utf8conf reproduce`
    /// (`--decoder NAME` or `--lib PATH --symbol NAME`); `None` for an adapter program,
    /// which is run directly.
    pub fn decoder_flags(&self) -> Option<String> {
        match *self {
            Invocation::BuiltIn(name) => Some(format!("--decoder {}", shell_quote(name))),
            Invocation::Library { path, symbol } => Some(library_flags(path, symbol)),
            Invocation::Program(_) => None,
        }
    }
}

/// `--lib PATH --symbol NAME`, quoted for a shell.
pub fn library_flags(path: &str, symbol: &str) -> String {
    format!(
        "--lib {} --symbol {}",
        shell_quote(path),
        shell_quote(symbol)
    )
}

/// The command that shows the decoder's answer on `witness`.
pub fn decode_command(invocation: Invocation<'_>, witness: &[u8]) -> String {
    match invocation {
        Invocation::Program(argv) => {
            let frame: String = (witness.len() as u32)
                .to_le_bytes()
                .iter()
                .chain(witness)
                .map(|b| format!("\\{b:03o}"))
                .collect();
            let argv: Vec<String> = argv.iter().map(|a| shell_quote(a)).collect();
            format!("printf '{frame}' | {}", argv.join(" "))
        }
        Invocation::BuiltIn(_) | Invocation::Library { .. } => format!(
            "utf8conf decode {} --hex {}",
            invocation.decoder_flags().unwrap_or_default(),
            shell_quote(&format_hex(witness))
        ),
    }
}

/// `utf8conf reproduce REPORT`, with `--lib PATH --symbol NAME` when the report is about
/// a C library (which `reproduce` must load again).
pub fn reproduce_command(report: &Path, library: Option<(&str, &str)>) -> String {
    let mut command = format!(
        "utf8conf reproduce {}",
        shell_quote(&report.to_string_lossy())
    );
    if let Some((path, symbol)) = library {
        command.push(' ');
        command.push_str(&library_flags(path, symbol));
    }
    command
}

/// What a report made by `utf8conf::author` prints for a witness (given as hex): the call
/// that replays the report in the author's own test, with the path the report was
/// written to.
pub fn author_replay(witness_hex: &str) -> String {
    format!(
        "utf8conf::author::reproduce(\"<report dir>/conformance.json\", &decoder) in a test of your crate, then `cargo test` (witness {witness_hex})"
    )
}

/// Quotes `text` for a POSIX shell when it holds anything but safe characters.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if safe {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quote_quotes_only_when_needed() {
        assert_eq!(shell_quote("reports/x.json"), "reports/x.json");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn built_in_decoders_are_decoded_by_name() {
        assert_eq!(
            decode_command(Invocation::of("std", None), &[0xC0, 0x80]),
            "utf8conf decode --decoder std --hex 'C0 80'"
        );
    }

    #[test]
    fn libraries_are_decoded_through_lib_and_symbol() {
        let command: Vec<String> = ["--lib", "./lib lenient.so", "--symbol", "lenient_decode"]
            .map(String::from)
            .to_vec();
        let invocation = Invocation::of("lenient_decode", Some(&command));
        assert_eq!(
            decode_command(invocation, &[0xED, 0xA0, 0x80]),
            "utf8conf decode --lib './lib lenient.so' --symbol lenient_decode --hex 'ED A0 80'"
        );
        assert_eq!(
            reproduce_command(Path::new("r/d/1.json"), Some(("./a.so", "f"))),
            "utf8conf reproduce r/d/1.json --lib ./a.so --symbol f"
        );
    }

    #[test]
    fn adapter_programs_get_one_frame_on_stdin() {
        let argv: Vec<String> = ["python3", "adapter.py"].map(String::from).to_vec();
        assert_eq!(
            decode_command(Invocation::of("py", Some(&argv)), &[0x80]),
            "printf '\\001\\000\\000\\000\\200' | python3 adapter.py"
        );
    }
}
