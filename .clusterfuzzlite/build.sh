#!/bin/bash -eu
# Builds every cargo-fuzz target with the sanitizer flags the OSS-Fuzz toolchain sets, and
# ships each with its seed corpus (corpus/<target>/) and the UTF-8 dictionary. Built without
# comparison tracing, as everywhere (fuzz/README.md, "Fuzz target speed"). The builder's
# CXXFLAGS take precedence over .cargo/config.toml's, so libFuzzer is built with ASan here
# (fuzz/README.md, "Distributed fuzzing").
cd "$SRC/utf8conf"
cargo fuzz build -O --no-trace-compares
release_dir=fuzz/target/x86_64-unknown-linux-gnu/release
for target in $(cargo fuzz list); do
  cp "$release_dir/$target" "$OUT/"
  cp fuzz/utf8.dict "$OUT/$target.dict"
  if [ -d "corpus/$target" ]; then
    (cd "corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
done
