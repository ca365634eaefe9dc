//! Adapters and libraries that misbehave: the protocol's edge cases, adapters that lie,
//! flood, hang, crash or fork, and C libraries that fail now and then. The harness must
//! finish, keep what it found, and leave no process behind. One test binary for all of
//! them, because each binary links the whole crate.

#[path = "../common/mod.rs"]
mod common;

mod adapter_protocol;
mod hostile_adapters;
mod hostile_check;
mod unreliable_adapters;
mod unreliable_lib;
