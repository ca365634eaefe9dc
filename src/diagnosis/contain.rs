//! Containing panics: a decoder that panics is a finding (aspect `crash`), not the end of
//! the run.
//!
//! Every in-process decode runs inside [`std::panic::catch_unwind`]. Rust's default panic
//! hook would still print each caught panic to stderr, which would bury the progress line
//! under thousands of messages, so a hook is installed once that, *on threads currently
//! inside [`contained`]*, records the message (with its source location) for the report
//! instead of printing it. Panics anywhere else still reach the previous hook unchanged.
//!
//! This cannot contain a decoder that aborts the process or loops forever; such decoders
//! belong behind the external adapter protocol, whose harness side has timeouts.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// True while this thread runs a contained call.
    static CONTAINING: Cell<bool> = const { Cell::new(false) };
    /// The message of the last panic caught on this thread.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static INSTALL_HOOK: Once = Once::new();

fn install_recording_hook() {
    INSTALL_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CONTAINING.with(Cell::get) {
                LAST_PANIC.with(|last| *last.borrow_mut() = Some(info.to_string()));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `call`, turning a panic into `Err(message)`.
pub fn contained<R>(call: impl FnOnce() -> R) -> Result<R, String> {
    install_recording_hook();
    let was_containing = CONTAINING.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(call));
    CONTAINING.with(|c| c.set(was_containing));
    result.map_err(|payload| {
        LAST_PANIC
            .with(|last| last.borrow_mut().take())
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panicked with a non-string payload".to_string())
    })
}

/// An in-process decoder whose every call is [`contained`]: a panic is a `crash`
/// answer. The model learner asks its decoder directly, so a panicking decoder must
/// not end the check there either.
pub struct Contained<'a>(pub &'a dyn crate::decoders::Decoder);

impl crate::decoders::Decoder for Contained<'_> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn version(&self) -> String {
        self.0.version()
    }
    fn description(&self) -> &str {
        self.0.description()
    }
    fn capabilities(&self) -> crate::decoders::Capabilities {
        self.0.capabilities()
    }
    fn decode_into(
        &self,
        input: &[u8],
        outcome: &mut crate::outcome::Outcome,
    ) -> Result<(), crate::outcome::DecoderFailure> {
        contained(|| self.0.decode_into(input, outcome)).unwrap_or_else(|message| {
            Err(crate::outcome::DecoderFailure {
                kind: crate::outcome::FailureKind::Crash,
                message: format!("panicked: {message}"),
            })
        })
    }
    /// The whole batch in one contained call, so that a decoder that pipelines its
    /// batches (an adapter process, a C library's worker) still does; when something in
    /// it panics, the batch is asked again input by input, each contained, so that the
    /// panic is the `crash` answer of the input that caused it.
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<crate::outcome::Answer> {
        contained(|| self.0.decode_batch(inputs))
            .unwrap_or_else(|_| inputs.iter().map(|input| self.decode(input)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_messages_and_normal_results_pass_through() {
        assert_eq!(contained(|| 7), Ok(7));
        let message = contained(|| -> u8 { panic!("decoder exploded at {}", 3) }).unwrap_err();
        assert!(message.contains("decoder exploded at 3"), "{message}");
        assert!(
            message.contains("contain.rs"),
            "location recorded: {message}"
        );
        assert!(!CONTAINING.with(Cell::get));
    }

    /// Panics on the byte `FF`, and counts its batch calls.
    struct PanicsOnFf(std::sync::atomic::AtomicUsize);

    impl crate::decoders::Decoder for PanicsOnFf {
        fn name(&self) -> &str {
            "panics-on-ff"
        }
        fn version(&self) -> String {
            String::new()
        }
        fn description(&self) -> &str {
            "panics when the input holds FF"
        }
        fn capabilities(&self) -> crate::decoders::Capabilities {
            crate::decoders::Capabilities::default()
        }
        fn decode_into(
            &self,
            input: &[u8],
            outcome: &mut crate::outcome::Outcome,
        ) -> Result<(), crate::outcome::DecoderFailure> {
            assert!(!input.contains(&0xFF), "FF");
            crate::decoders::reset_outcome(outcome, "panics-on-ff");
            Ok(())
        }
        fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<crate::outcome::Answer> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            inputs.iter().map(|input| self.decode(input)).collect()
        }
    }

    #[test]
    fn a_batch_is_passed_on_whole_and_a_panic_in_it_is_the_crash_of_its_own_input() {
        use crate::decoders::Decoder;
        let inner = PanicsOnFf(std::sync::atomic::AtomicUsize::new(0));
        let decoder = Contained(&inner);
        let clean = decoder.decode_batch(&[b"A", b"B"]);
        assert!(clean.iter().all(Result::is_ok));
        assert_eq!(
            inner.0.load(std::sync::atomic::Ordering::Relaxed),
            1,
            "one batch call for the whole batch"
        );
        let answers = decoder.decode_batch(&[b"A", b"\xFF", b"B"]);
        assert!(answers[0].is_ok() && answers[2].is_ok());
        let failure = answers[1].as_ref().unwrap_err();
        assert_eq!(failure.kind, crate::outcome::FailureKind::Crash);
        assert!(failure.message.contains("FF"), "{}", failure.message);
    }
}
