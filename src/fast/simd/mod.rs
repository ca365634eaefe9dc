//! The SIMD algorithms, written once over two small register traits and instantiated
//! per instruction set, as memchr's `arch/generic` does. One file per job:
//!
//! | file | job |
//! |---|---|
//! | [`vector`] | the [`Vector`] and [`Kernel16`] register traits |
//! | [`validate`](mod@validate) | detection of ill-formed blocks (Keiser & Lemire lookup algorithm) |
//! | [`utf32`] | UTF-8 to UTF-32 conversion of validated chunks (16-byte kernel) |
//! | `units` | that kernel's output: scalar values, or UTF-16 code units of text without 4-byte characters |
//! | [`utf16`] | UTF-8 to UTF-16: the driver, and the 16-byte kernels' conversion (code units, or UTF-32 narrowed) |
//! | `units` | the 16-byte kernel's output unit: scalar values, or UTF-16 code units |
//! | [`encode`](mod@encode) | UTF-16 and UTF-32 to UTF-8 (8 lanes of 16 bits, ASCII runs wide) |
//! | [`encode_kernel`] | the [`EncodeKernel`] register trait and the encoder's packing tables |
//! | [`lossy`] | lossy decoding's entry points and its dense-error loop |
//! | `lossy_run` | lossy decoding's block loop: validation and copy fused, errors resolved in the loop |
//! | `utf16_lossy` | lossy UTF-16's step: the run to the next error, with no per-call setup |
//! | `utf16_lossy_patched` | lossy UTF-16 with the 16-byte kernels: a stretch's error units replaced by U+FFFD's bytes, then one kernel call |
//! | [`tables`] | the conversion and expansion tables, built at compile time |
//! | `sse42`, `avx2`, `avx512`, `neon` | the traits implemented with intrinsics |
//! | `avx512_utf32` | the AVX-512 VBMI2 UTF-32 kernel (x86-64 only), generic over its output |
//! | `avx512_output` | that kernel's output trait, its UTF-32 form, and ASCII widening |
//! | `avx512_utf16` | that kernel's UTF-16 output: narrowed in registers, surrogate pairs compressed |
//! | `avx512_utf16_lossy` | lossy UTF-16 with that kernel: error units marked, then U+FFFD written by the kernel |
//! | `encode_avx512` | the AVX-512 VBMI2 encoder, 32 UTF-16 units or 16 UTF-32 values per step (x86-64 only) |
//!
//! The per-ISA modules only implement the traits and instantiate the generic functions
//! inside `#[target_feature(enable = ...)]` functions. The trait methods are
//! `#[inline(always)]` so that they are compiled with those target features.
//!
//! Every generic `unsafe fn` here has the same base contract: the instruction set of
//! the `V` or `K` it is instantiated with must be available on this CPU (the backend's
//! `is_available()` returned true); its own `# Safety` section adds the rest.

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
#[cfg(target_arch = "x86_64")]
mod avx512_lossy;
#[cfg(target_arch = "x86_64")]
mod avx512_output;
#[cfg(target_arch = "x86_64")]
mod avx512_utf16;
#[cfg(target_arch = "x86_64")]
mod avx512_utf16_lossy;
#[cfg(target_arch = "x86_64")]
mod avx512_utf32;
pub mod encode;
#[cfg(target_arch = "x86_64")]
pub mod encode_avx512;
pub mod encode_kernel;
pub mod lossy;
mod lossy_run;
#[cfg(target_arch = "aarch64")]
pub mod neon;
#[cfg(target_arch = "x86_64")]
pub mod sse42;
pub mod tables;
mod units;
pub mod utf16;
mod utf16_lossy;
mod utf16_lossy_patched;
pub mod utf32;
pub mod validate;
pub mod vector;

pub use encode_kernel::EncodeKernel;
pub use lossy::{decode_lossy_into_using, decode_lossy_using, lossy_dense};
pub use utf32::decode_utf32;
pub use validate::{error_bits, validate, BYTE_HIGH, PREV1_HIGH, PREV1_LOW};
pub use vector::{assemble_lane, Kernel16, Vector};
