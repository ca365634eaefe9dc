//! AddressSanitizer's defaults for the fuzz targets (nightly builds; without a sanitizer
//! nothing calls this).
//!
//! The ASan runtime reads its options from `__asan_default_options` first and from
//! `ASAN_OPTIONS` after it, so anything set in the environment (by a user, by ClusterFuzz)
//! still wins. The one default changed here is `detect_stack_use_after_return`, which LLVM
//! turns on by default on Linux: each call to a function with locals on the stack then takes
//! a frame from ASan's "fake stack" and poisons and unpoisons its shadow memory; without it
//! the `differential` target runs 1.3x faster (fuzz/README.md, "Fuzz target speed"). The
//! bug class it finds, a pointer to a returned function's local used afterwards, needs a
//! raw pointer to escape its frame; the fuzzed `unsafe` code (`src/fast/`) reads and writes
//! only the input and output slices it is given. Set
//! `ASAN_OPTIONS=detect_stack_use_after_return=1` to run with it anyway.

use std::ffi::c_char;

/// The default ASan options of the fuzz targets (see the module header).
#[no_mangle]
pub extern "C" fn __asan_default_options() -> *const c_char {
    c"detect_stack_use_after_return=0".as_ptr()
}
