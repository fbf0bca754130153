//! An allocator wrapper that counts each thread's allocations and remembers the largest, for
//! the tests, examples and benchmarks that check allocation behavior. Install it with
//! `#[global_allocator] static A: alloc_stats::Tracking = alloc_stats::Tracking;`, then wrap
//! the code to observe in [`measure`].
//!
//! Outside a [`measure`] call the allocator only forwards (one relaxed atomic load per
//! allocation), so timings taken beside it are not distorted by the bookkeeping.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering::Relaxed};

/// Forwards to the system allocator, counting per thread while a [`measure`] call runs.
pub struct Tracking;

/// How many [`measure`] calls are running, on any thread.
static MEASURING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
    /// Bytes this thread holds (allocated less freed) since its first measured allocation.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The most `LIVE` has been since the current `measure` call began.
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn note(size: usize) {
    if MEASURING.load(Relaxed) == 0 {
        return;
    }
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
    let _ = BYTES.try_with(|b| b.set(b.get() + size));
}

/// How many [`Process`] counters are running.
static PROCESS: AtomicUsize = AtomicUsize::new(0);
/// Bytes all threads hold while a [`Process`] counter runs (allocated less freed since the
/// first one started), and the most they held since the last [`Process::start`].
static PROCESS_LIVE: AtomicIsize = AtomicIsize::new(0);
static PROCESS_PEAK: AtomicIsize = AtomicIsize::new(0);

/// `delta` more bytes held by this thread.
fn hold(delta: isize) {
    if PROCESS.load(Relaxed) != 0 {
        let now = PROCESS_LIVE.fetch_add(delta, Relaxed) + delta;
        PROCESS_PEAK.fetch_max(now, Relaxed);
    }
    if MEASURING.load(Relaxed) == 0 {
        return;
    }
    let _ = LIVE.try_with(|l| {
        let now = l.get() + delta;
        l.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator; the bookkeeping allocates
// nothing.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        hold(layout.size() as isize);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        hold(-(layout.size() as isize));
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        hold(new_size as isize - layout.size() as isize);
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
    /// Bytes requested in all (a reallocation counts its new size).
    pub bytes: usize,
    /// The most bytes held at once beyond what was held when the call began (allocated less
    /// freed, on this thread): the call's peak memory.
    pub peak: usize,
    /// The bytes still held when the call returned, beyond what was held when it began:
    /// what its result keeps.
    pub held: usize,
}

/// Runs `f` and reports this thread's allocations during it (only counted while
/// [`Tracking`] is the global allocator).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Stats) {
    MEASURING.fetch_add(1, Relaxed);
    let before = COUNT.with(Cell::get);
    let bytes_before = BYTES.with(Cell::get);
    let outer_largest = LARGEST.with(|l| l.replace(0));
    let live_before = LIVE.with(Cell::get);
    let outer_peak = PEAK.with(|p| p.replace(live_before));
    let out = f();
    let peak = PEAK.with(|p| {
        let peak = p.get();
        p.set(outer_peak.max(peak));
        peak
    });
    let stats = Stats {
        count: COUNT.with(Cell::get) - before,
        largest: LARGEST.with(|l| l.replace(outer_largest.max(l.get()))),
        bytes: BYTES.with(Cell::get) - bytes_before,
        peak: (peak - live_before).max(0) as usize,
        held: (LIVE.with(Cell::get) - live_before).max(0) as usize,
    };
    MEASURING.fetch_sub(1, Relaxed);
    (out, stats)
}

/// The most bytes the whole process (every thread) held at once while it runs, beyond what it
/// held when it started: for code that spans threads and `await`s, where [`measure`] (one
/// thread, one closure) cannot follow it. One at a time.
pub struct Process {
    start: isize,
}

impl Process {
    /// Starts counting.
    pub fn start() -> Process {
        PROCESS.fetch_add(1, Relaxed);
        let start = PROCESS_LIVE.load(Relaxed);
        PROCESS_PEAK.store(start, Relaxed);
        Process { start }
    }

    /// The most bytes held at once since [`start`](Process::start), beyond what was held then.
    pub fn peak(&self) -> usize {
        (PROCESS_PEAK.load(Relaxed) - self.start).max(0) as usize
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        PROCESS.fetch_sub(1, Relaxed);
    }
}

/// Allocations made by one call of `f` after a first, unobserved one: the steady state, as a
/// benchmark's timing loop sees it.
pub fn steady_state_allocations<T>(mut f: impl FnMut() -> T) -> usize {
    drop(f());
    let (out, stats) = measure(&mut f);
    drop(out);
    stats.count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static A: Tracking = Tracking;

    #[test]
    fn counts_this_threads_allocations_while_measuring() {
        let (v, stats) = measure(|| {
            let mut v: Vec<u64> = Vec::with_capacity(100);
            v.push(1);
            v
        });
        assert_eq!(stats.count, 1);
        assert_eq!(stats.largest, 800);
        assert_eq!(stats.peak, 800);
        assert_eq!(stats.held, 800, "the vector returned is still held");
        let ((), stats) = measure(|| {
            for _ in 0..4 {
                drop(vec![0u8; 1000]);
            }
        });
        assert_eq!(stats.bytes, 4000);
        assert_eq!(stats.peak, 1000, "freed memory does not count twice");
        drop(v);
        let mut grow = Vec::<u8>::new();
        let n = steady_state_allocations(|| {
            grow.clear();
            grow.extend_from_slice(&[0; 64]);
        });
        assert_eq!(n, 0, "a reused vector does not allocate again");
        assert_eq!(steady_state_allocations(|| vec![0u8; 16]), 1);
    }
}
