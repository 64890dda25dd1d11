//! A counting global allocator: how many bytes a candidate holds after its build, and the
//! most it held at once while building.
//!
//! Candidates do not agree on how to report their own size (some report nothing), so the
//! sweep measures every one the same way: it wraps the system allocator, counts live bytes,
//! and keeps a high-water mark it can reset. The counts are kept per thread, so a build
//! measured on one thread is not disturbed by other threads allocating at the same time (a
//! progress display, other tests); a block freed by another thread than the one that
//! allocated it is counted on the thread that frees it, which does not matter for the
//! single-threaded builds measured here. A binary (or test) installs it with
//!
//! ```
//! #[global_allocator]
//! static ALLOCATOR: bloom_compare::alloc::CountingAllocator =
//!     bloom_compare::alloc::CountingAllocator;
//! # fn main() {}
//! ```
//!
//! Without it, [`is_installed`] is false and the memory columns of a report are empty.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

static USED: AtomicBool = AtomicBool::new(false);

thread_local! {
    // Const-initialised and without destructors: touching them never allocates, which a
    // global allocator's own bookkeeping must not do.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// The system allocator, counting live bytes and their high-water mark.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAllocator;

#[inline]
fn added(bytes: usize) {
    // `try_with`: during thread teardown the counters may be gone; the bytes then go
    // uncounted, on a thread that is not measuring anything.
    let _ = LIVE.try_with(|live| {
        let now = live.get().wrapping_add(bytes as isize);
        live.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
    });
}

#[inline]
fn removed(bytes: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().wrapping_sub(bytes as isize)));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so it
// upholds `GlobalAlloc`'s contract exactly as `System` does; the counting around the calls
// touches only atomics and never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees for `alloc` (non-zero size) pass through.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            added(layout.size());
            USED.store(true, Ordering::Relaxed);
        }
        ptr
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            added(layout.size());
            USED.store(true, Ordering::Relaxed);
        }
        ptr
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller guarantees `ptr` was allocated by this allocator (hence by
        // `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        removed(layout.size());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's guarantees for `realloc` pass through to `System`, which
        // allocated `ptr`.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            removed(layout.size());
            added(new_size);
        }
        new
    }
}

/// Whether [`CountingAllocator`] is the global allocator (it has served an allocation).
pub fn is_installed() -> bool {
    // Make sure at least one allocation has happened since start-up.
    drop(std::hint::black_box(vec![0u8; 1]));
    USED.load(Ordering::Relaxed)
}

/// Bytes allocated minus bytes freed by the calling thread since it started.
pub fn live_bytes() -> isize {
    LIVE.with(Cell::get)
}

/// The highest [`live_bytes`] of the calling thread since its last [`reset_peak`].
pub fn peak_bytes() -> isize {
    PEAK.with(Cell::get)
}

/// Starts a new high-water mark for the calling thread at its current live bytes.
pub fn reset_peak() {
    PEAK.with(|peak| peak.set(live_bytes()));
}

/// What a piece of work allocated: bytes still held at its end and the most held at once
/// during it, both above what was live when it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes held at the end, above the start.
    pub held: usize,
    /// The most bytes held at once during the work, above the start.
    pub peak: usize,
}

/// Runs `work` on the calling thread and measures its [`Footprint`] (`None` when the
/// counting allocator is not installed). Allocations by other threads are not counted.
pub fn footprint<R>(work: impl FnOnce() -> R) -> (R, Option<Footprint>) {
    if !is_installed() {
        return (work(), None);
    }
    let start = live_bytes();
    reset_peak();
    let result = work();
    let end = live_bytes();
    let peak = peak_bytes();
    (
        result,
        Some(Footprint {
            held: end.saturating_sub(start).max(0) as usize,
            peak: peak.saturating_sub(start).max(0) as usize,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static ALLOCATOR: CountingAllocator = CountingAllocator;

    #[test]
    fn footprint_counts_held_and_peak_bytes() {
        assert!(is_installed());
        let (kept, footprint) = footprint(|| {
            let scratch = vec![1u8; 1 << 20];
            let kept = vec![2u64; 1000];
            drop(scratch);
            kept
        });
        let f = footprint.unwrap();
        assert_eq!(f.held, 8_000);
        assert!(f.peak >= 1 << 20 && f.peak < (1 << 20) + 16_000, "{f:?}");
        // Another thread's allocations do not count.
        let (_, f) = super::footprint(|| {
            std::thread::spawn(|| vec![0u8; 1 << 22])
                .join()
                .unwrap()
                .len()
        });
        assert!(f.unwrap().held < 1 << 20, "{f:?}");
        drop(kept);
    }
}
