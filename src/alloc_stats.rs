//! An allocator wrapper that counts this thread's allocations and remembers the largest, for
//! the tests and examples that check allocation behavior. Install it with
//! `#[global_allocator] static A: rust_vt::alloc_stats::Tracking = rust_vt::alloc_stats::Tracking;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Forwards to the system allocator, counting per thread.
pub struct Tracking;

thread_local! {
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the bookkeeping allocates
// nothing.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations made by this thread while `f` ran: how many, and the largest in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Allocations and reallocations.
    pub count: usize,
    /// The largest single request.
    pub largest: usize,
}

/// Runs `f` and reports this thread's allocations during it (only counted while
/// [`Tracking`] is the global allocator).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Stats) {
    let before = COUNT.with(Cell::get);
    let outer_largest = LARGEST.with(|l| l.replace(0));
    let out = f();
    let stats = Stats {
        count: COUNT.with(Cell::get) - before,
        largest: LARGEST.with(|l| l.replace(outer_largest.max(l.get()))),
    };
    (out, stats)
}
