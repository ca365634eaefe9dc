//! utf8conf: a UTF-8 fuzzing and conformance harness.

pub mod fast;
