//! `utf8conf seed-corpus --out DIR`: writes the seed corpus of every fuzz target from the
//! embedded test vectors (`vectors/`).
//!
//! libFuzzer starts from its corpus; a corpus that already holds every documented error
//! form (each vector is one) reaches the decoders' error paths at once instead of after
//! millions of mutations. Per target (the folder layout `cargo fuzz` uses, `DIR/<target>/`):
//!
//! - `differential/`, `structured/`: each vector's bytes, named by vector id (the
//!   `structured` target reads them as programs, which gives it varied starting points);
//! - `backends/`: each vector's bytes, and the same after [`BACKENDS_PAD`] bytes of ASCII, so
//!   that the vector straddles a 64-byte block;
//! - `streaming/`: each vector's bytes behind a chunk plan (the `streaming` target's input
//!   format, [`CycledSizes`]): one chunk, and one byte at a time.
//!
//! The checked-in corpus is this output minimised with `cargo fuzz cmin` (fuzz/README.md).
//! Files are written only if missing or different, so the command can be rerun.

use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::corpus::vectors;
use crate::decoders::chunk_plan::CycledSizes;

/// The ASCII padding put before a vector in the `backends` corpus: the vector starts 3
/// bytes before a 64-byte boundary, so multi-byte sequences cross it.
pub const BACKENDS_PAD: usize = 61;

/// Arguments of `utf8conf seed-corpus`.
#[derive(Debug, Args)]
pub struct SeedCorpusArgs {
    /// The corpus root; a folder per fuzz target is made under it.
    #[arg(long, default_value = "corpus")]
    out: PathBuf,
}

/// One seed file: target, file name, contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seed {
    /// The fuzz target whose corpus it belongs to.
    pub target: &'static str,
    /// The file name.
    pub name: String,
    /// The fuzz input.
    pub data: Vec<u8>,
}

/// Every seed, made from the embedded vectors.
pub fn seeds() -> Result<Vec<Seed>, vectors::VectorError> {
    let mut seeds = Vec::new();
    for vector in vectors::embedded()? {
        let id = &vector.id;
        let bytes = &vector.bytes;
        for target in ["differential", "structured"] {
            seeds.push(Seed {
                target,
                name: id.clone(),
                data: bytes.clone(),
            });
        }
        let mut padded = vec![b'a'; BACKENDS_PAD];
        padded.extend_from_slice(bytes);
        seeds.push(Seed {
            target: "backends",
            name: id.clone(),
            data: bytes.clone(),
        });
        seeds.push(Seed {
            target: "backends",
            name: format!("{id}.pad{BACKENDS_PAD}"),
            data: padded,
        });
        seeds.push(Seed {
            target: "streaming",
            name: format!("{id}.whole"),
            data: CycledSizes::default().encode(bytes),
        });
        seeds.push(Seed {
            target: "streaming",
            name: format!("{id}.bytewise"),
            data: CycledSizes::new(&[1])
                .expect("one byte per chunk is a plan")
                .encode(bytes),
        });
    }
    Ok(seeds)
}

/// Writes `data` to `path` unless it already holds exactly that; true if written.
fn write_if_changed(path: &Path, data: &[u8]) -> std::io::Result<bool> {
    if fs::read(path).is_ok_and(|existing| existing == data) {
        return Ok(false);
    }
    fs::write(path, data)?;
    Ok(true)
}

/// Runs `utf8conf seed-corpus`.
pub fn run(args: SeedCorpusArgs) -> Result<u8, CliError> {
    let seeds = seeds()?;
    let mut written = 0;
    for seed in &seeds {
        let dir = args.out.join(seed.target);
        fs::create_dir_all(&dir)
            .map_err(|error| CliError(format!("{}: {error}", dir.display())))?;
        let path = dir.join(&seed.name);
        if write_if_changed(&path, &seed.data)
            .map_err(|error| CliError(format!("{}: {error}", path.display())))?
        {
            written += 1;
        }
    }
    println!(
        "{} seeds for 4 targets under {} ({written} written, {} unchanged)",
        seeds.len(),
        args.out.display(),
        seeds.len() - written
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_gets_every_vector() {
        let seeds = seeds().unwrap();
        let vector_count = vectors::embedded().unwrap().len();
        for (target, per_vector) in [
            ("differential", 1),
            ("structured", 1),
            ("backends", 2),
            ("streaming", 2),
        ] {
            let count = seeds.iter().filter(|seed| seed.target == target).count();
            assert_eq!(count, per_vector * vector_count, "{target}");
        }
        let names: std::collections::HashSet<(&str, &str)> = seeds
            .iter()
            .map(|seed| (seed.target, seed.name.as_str()))
            .collect();
        assert_eq!(names.len(), seeds.len(), "file names are unique per target");
    }

    #[test]
    fn streaming_seeds_are_plans_followed_by_the_vector() {
        let seeds = seeds().unwrap();
        let streaming = seeds.iter().filter(|seed| seed.target == "streaming");
        for seed in streaming {
            let (plan, text) = CycledSizes::parse(&seed.data);
            let whole = seed.name.ends_with(".whole");
            assert_eq!(plan.sizes(), if whole { &[][..] } else { &[1][..] });
            assert_eq!(seed.data.len(), text.len() + 1 + plan.sizes().len());
        }
    }
}
