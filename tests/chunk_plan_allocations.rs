//! Choosing an input's chunk plan builds one splitting, not every splitting before it:
//! `chunkings(..).nth(k)` skips the first `k` without allocating them. Counted with a
//! global allocator that tallies the allocations of the current thread, so the count is
//! exact and does not depend on timing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use utf8conf::decoders::chunk_plan::{chunking_count, chunkings};

/// The system allocator, counting this thread's allocations.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counter is a
// thread-local `Cell` of a `Copy` integer, which allocates nothing when touched.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (see `alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        // SAFETY: `ptr` was allocated by `System` with `layout`; the contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations made by `f` on this thread.
fn allocations_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = f();
    (result, ALLOCATIONS.with(Cell::get) - before)
}

#[test]
fn nth_allocates_only_the_splitting_it_returns() {
    let input = vec![0u8; 300];
    let last = chunking_count(input.len()) - 1;
    // The last splitting is a seeded one, after 299 two-chunk splits, one byte-per-chunk
    // splitting and 15 seeded ones: 315 splittings skipped.
    let (skipped_to, allocations) = allocations_of(|| chunkings(&input, 0).nth(last));
    let walked = chunkings(&input, 0).last();
    assert_eq!(skipped_to, walked);
    let (_, one_alone) = allocations_of(|| {
        let mut boundaries = Vec::new();
        for &boundary in skipped_to.as_ref().unwrap() {
            boundaries.push(boundary);
        }
        boundaries
    });
    assert!(
        allocations <= one_alone,
        "{allocations} allocations to skip to splitting {last}; building it alone takes {one_alone}"
    );
}
