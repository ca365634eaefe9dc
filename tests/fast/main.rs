//! `utf8conf::fast` against std and the reference decoder, on every backend the CPU
//! has: one-shot, streaming and UTF-16 output. The long sweeps are `#[ignore]`d beside a
//! quick form; CI runs them in release mode with `--include-ignored`.

mod fast_backends;
mod fast_lossy;
mod fast_reference;
mod fast_stream;
mod fast_utf16;
