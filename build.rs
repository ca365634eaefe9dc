//! Records, at build time, the versions the harness reports for its decoders: the rustc
//! that built Rust std, and the locked versions of the decoder crates (from Cargo.lock).

use std::process::Command;

/// Crates whose versions `utf8conf decoders` reports.
const DECODER_CRATES: &[&str] = &["encoding_rs", "simdutf8", "bstr"];

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=UTF8CONF_RUSTC_VERSION={rustc_version}");

    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    for krate in DECODER_CRATES {
        let version = locked_version(&lock, krate).unwrap_or_else(|| "unknown".into());
        println!("cargo:rustc-env=UTF8CONF_VERSION_{krate}={version}");
    }
}

/// Finds `version = "..."` in the `[[package]]` block whose name is `krate`.
fn locked_version(lock: &str, krate: &str) -> Option<String> {
    let name_line = format!("name = \"{krate}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == name_line {
            let version = lines.next()?.trim().strip_prefix("version = \"")?;
            return Some(version.trim_end_matches('"').to_string());
        }
    }
    None
}
