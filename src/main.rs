//! The `utf8conf` binary: see `utf8conf --help` and the README.

fn main() -> std::process::ExitCode {
    utf8conf::cli::main()
}
