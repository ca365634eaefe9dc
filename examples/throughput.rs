//! Throughput of every way to reach a decoder, on the same inputs: `utf8conf check`'s
//! input set (mostly inputs of 0-4 bytes), sent in `check`'s batches of 2048, timing only
//! the decoding (no grading).
//!
//! ```text
//! cargo run --release --example throughput -- \
//!     [--adapters adapters/list.json | --adapters none] [--lib LIB.so:SYMBOL ...] \
//!     [--seconds 5] [--max-len N]
//! ```
//!
//! Measures the built-in in-process decoders (`std`, `reference`), a decoder through the
//! crate-author API (`utf8conf::author`, std's `from_utf8` + `from_utf8_lossy`), each
//! `--lib` library in its worker process, and each listed adapter whose toolchain is on
//! PATH (the inputs over and over for `--seconds` each, at least once, after its
//! start-up). `--max-len 4` keeps only the inputs of at most 4 bytes (the exhaustive and
//! boundary sets). Prints a Markdown table: inputs per second of wall time, and for
//! `--lib` also per CPU-second (this process's CPU time plus the worker's, from
//! `getrusage`), which a loaded machine does not distort: the harness and the worker take
//! turns, so on an idle machine wall time is about that CPU time. The program is also its
//! own `--lib` worker (`throughput lib-worker ...`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use utf8conf::adapter::list::AdapterList;
use utf8conf::adapter::{AdapterConfig, ExternalDecoder};
use utf8conf::author::{InProcess, YourDecoder};
use utf8conf::conformance::inputs::check_inputs;
use utf8conf::conformance::Subject;
use utf8conf::decoders;
use utf8conf::native::{NativeConfig, NativeDecoder};
use utf8conf::outcome::{ErrorLen, Outcome};

const BATCH: usize = 2048;

/// std through the crate-author API.
struct StdViaAuthorApi;

impl YourDecoder for StdViaAuthorApi {
    fn name(&self) -> &str {
        "std (author API)"
    }
    fn decode(&self, input: &[u8]) -> Outcome {
        let mut outcome = Outcome::verdict(self.name(), true);
        if let Err(error) = std::str::from_utf8(input) {
            outcome.valid = false;
            outcome.valid_up_to = Some(error.valid_up_to());
            outcome.error_len = Some(ErrorLen::from_std(error.error_len()));
        }
        outcome.scalars = Some(
            String::from_utf8_lossy(input)
                .chars()
                .map(u32::from)
                .collect(),
        );
        outcome
    }
}

/// Decodes `inputs` in batches, over and over until `budget` has passed (all of them at
/// least once); (inputs decoded, seconds).
fn measure(subject: Subject<'_>, inputs: &[&[u8]], budget: Duration) -> (usize, f64) {
    let started = Instant::now();
    let mut done = 0;
    for batch in inputs.chunks(BATCH).cycle() {
        let answers = subject
            .decode_batch(batch)
            .complete()
            .expect("the decoder keeps running");
        assert_eq!(answers.len(), batch.len());
        done += batch.len();
        if done >= inputs.len() && started.elapsed() > budget {
            break;
        }
    }
    (done, started.elapsed().as_secs_f64())
}

/// One table row; `cpu` is (this process's, the worker's) CPU seconds for `--lib`.
fn row(how: &str, name: &str, (done, seconds): (usize, f64), cpu: Option<(f64, f64)>) {
    let per_cpu = match cpu {
        Some((own, worker)) => format!(
            "{own:.2} + {worker:.2} | {:.0}",
            done as f64 / (own + worker)
        ),
        None => " | ".to_string(),
    };
    println!(
        "| {how} | {name} | {done} | {seconds:.2} | {:.0} | {per_cpu} |",
        done as f64 / seconds
    );
}

/// User plus system CPU seconds of this process (`RUSAGE_SELF`) or of its waited-for
/// children (`RUSAGE_CHILDREN`).
fn cpu_seconds(who: libc::c_int) -> f64 {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own; `who` is one of the two constants.
    let status = unsafe { libc::getrusage(who, &mut usage) };
    assert_eq!(status, 0, "getrusage");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("lib-worker") {
        let library = PathBuf::from(&args[3]);
        // `lib-worker --lib PATH --symbol NAME --memory-limit BYTES`, as the harness says it.
        let memory_limit = args
            .get(7)
            .and_then(|limit| limit.parse().ok())
            .unwrap_or(utf8conf::native::worker::DEFAULT_ADDRESS_SPACE_LIMIT);
        // This example grades decoders only: no `--encode=FORM` follows.
        std::process::exit(i32::from(utf8conf::native::worker::serve(
            &library,
            &args[5],
            memory_limit,
            None,
        )));
    }
    let mut list = PathBuf::from("adapters/list.json");
    let mut libraries = Vec::new();
    let mut budget = Duration::from_secs(5);
    let mut max_len = usize::MAX;
    let mut rest = args[1..].iter();
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--adapters" => list = PathBuf::from(value),
            "--lib" => libraries.push(value.clone()),
            "--seconds" => budget = Duration::from_secs_f64(value.parse().expect("seconds")),
            "--max-len" => max_len = value.parse().expect("--max-len N"),
            other => panic!("unknown argument {other}"),
        }
    }
    let owned = check_inputs().expect("embedded vectors");
    let inputs: Vec<&[u8]> = owned
        .iter()
        .map(|i| i.bytes.as_slice())
        .filter(|bytes| bytes.len() <= max_len)
        .collect();
    let bytes: usize = inputs.iter().map(|i| i.len()).sum();
    println!(
        "{} inputs, {:.1} bytes on average, batches of {BATCH}\n",
        inputs.len(),
        bytes as f64 / inputs.len() as f64
    );
    println!(
        "| How | Decoder | Inputs | Seconds | Inputs/s | CPU seconds (harness + worker) | Inputs/CPU-s |\n|---|---|---:|---:|---:|---:|---:|"
    );
    for name in ["std", "reference"] {
        let decoder = decoders::by_name(name).expect("built in");
        row(
            "in process (built-in)",
            name,
            measure(Subject::InProcess(decoder.as_ref()), &inputs, budget),
            None,
        );
    }
    let author = InProcess::new(&StdViaAuthorApi);
    row(
        "in process (author API)",
        "std",
        measure(Subject::InProcess(&author), &inputs, budget),
        None,
    );
    for spec in &libraries {
        let (library, symbol) = spec.rsplit_once(':').expect("--lib LIB.so:SYMBOL");
        let mut config = NativeConfig::new(library.into(), symbol.into()).expect("own executable");
        config.hello_timeout = Duration::from_secs(30);
        let children_before = cpu_seconds(libc::RUSAGE_CHILDREN);
        let native = NativeDecoder::start(config).unwrap_or_else(|e| panic!("{e}"));
        let own_before = cpu_seconds(libc::RUSAGE_SELF);
        let measured = measure(Subject::Native(&native), &inputs, budget);
        let own = cpu_seconds(libc::RUSAGE_SELF) - own_before;
        // The worker's CPU time is counted once it has exited and been waited for.
        if let Some(note) = native.finish() {
            panic!("{symbol}: {note}");
        }
        let worker = cpu_seconds(libc::RUSAGE_CHILDREN) - children_before;
        row(
            "--lib (worker process)",
            symbol,
            measured,
            Some((own, worker)),
        );
    }
    if list.as_os_str() == "none" {
        return;
    }
    let adapters = AdapterList::load(&list).unwrap_or_else(|e| panic!("{e}"));
    let root = list
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let root = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    for entry in &adapters.adapters {
        if !entry.missing_tools().is_empty() {
            eprintln!("skipping {}: toolchain not on PATH", entry.name);
            continue;
        }
        let mut config = AdapterConfig::new(entry.argv_in(root));
        config.name = Some(entry.name.clone());
        config.hello_timeout = Duration::from_secs(300);
        match ExternalDecoder::start(config) {
            Ok(external) => row(
                "--cmd (adapter)",
                &entry.name,
                measure(Subject::External(&external), &inputs, budget),
                None,
            ),
            Err(error) => eprintln!("skipping {}: {error}", entry.name),
        }
    }
}
