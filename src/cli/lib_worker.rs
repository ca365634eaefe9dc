//! `utf8conf lib-worker --lib PATH --symbol NAME` (hidden): the process in which
//! `check --lib` runs a C library, so that the library's crashes and hangs cannot take the
//! harness down. Spoken to only by the harness (see `native::wire`).

use std::path::PathBuf;

use clap::Args;

/// Arguments of the hidden `lib-worker` command.
#[derive(Debug, Args)]
pub struct LibWorkerArgs {
    /// The shared library to load.
    #[arg(long)]
    lib: PathBuf,
    /// The exported decode function (`utf8conf_decode_fn`).
    #[arg(long)]
    symbol: String,
    /// The worker's address-space limit in bytes (RLIMIT_AS; the default is the harness's,
    /// 8 GiB).
    #[arg(long, default_value_t = 8 << 30)]
    memory_limit: u64,
    /// The symbol is an encode function of this form (`utf16` or `utf32`) instead of a
    /// decode function.
    #[arg(long, value_parser = ["utf16", "utf32"])]
    encode: Option<String>,
}

/// Serves batches until the harness closes standard input; returns the exit code.
#[cfg(unix)]
pub fn run(args: LibWorkerArgs) -> u8 {
    use crate::encoders::Form;
    let encode = match args.encode.as_deref() {
        Some("utf16") => Some(Form::Utf16),
        Some(_) => Some(Form::Utf32),
        None => None,
    };
    crate::native::worker::serve(&args.lib, &args.symbol, args.memory_limit, encode)
}

/// Without dlopen there is no worker.
#[cfg(not(unix))]
pub fn run(_args: LibWorkerArgs) -> u8 {
    eprintln!("utf8conf: error: --lib needs a Unix system");
    super::EXIT_ERROR
}
