//! Inputs for the harness: the project's own test vectors (`vectors/`),
//! embedded in the binary. Generators of further inputs live beside this.

pub mod vectors;
