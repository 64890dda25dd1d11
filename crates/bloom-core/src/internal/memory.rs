//! Raw memory for the bit stores: how many words a size needs, single-bit access, the
//! prefetch hint, huge-page advice and the abort of an infallible copy. The bottom of the
//! storage layer: `bits` and the filter crates' own stores build on it.

use alloc::alloc::Layout;

use bitvec::prelude::Lsb0;
use bitvec::slice::BitSlice;

use crate::Error;
use crate::internal::checks::MAX_NUM_BITS;

/// Words needed for `num_bits` bits, checked against the address space.
///
/// # Errors
///
/// [`Error::TooLarge`] when the words do not fit in memory on this platform.
pub fn words_for(num_bits: u64) -> Result<usize, Error> {
    let words = num_bits.div_ceil(64);
    let max_bits = (BitSlice::<u64, Lsb0>::MAX_BITS as u64).min(MAX_NUM_BITS);
    match usize::try_from(words) {
        Ok(w) if num_bits <= max_bits && w.checked_mul(8).is_some() => Ok(w),
        _ => Err(Error::TooLarge {
            requested_bits: num_bits as f64,
            max_bits,
        }),
    }
}

/// Whether bit `pos` is set in `words` (LSB-first within each word).
///
/// # Panics
///
/// If `pos / 64` is not a valid index of `words`.
#[inline(always)]
pub fn test_bit(words: &[u64], pos: u64) -> bool {
    (words[(pos >> 6) as usize] >> (pos & 63)) & 1 != 0
}

/// ORs `mask` into an atomic word (`Relaxed`); whether every bit of `mask` was set before.
/// The insert of every filter over atomic words: the locked write is skipped when a load
/// shows the bits set already, which keeps the cache line shared between cores instead of
/// bouncing it on every insert of a known key.
#[inline(always)]
pub fn or_relaxed(word: &core::sync::atomic::AtomicU64, mask: u64) -> bool {
    use core::sync::atomic::Ordering::Relaxed;
    word.load(Relaxed) & mask == mask || word.fetch_or(mask, Relaxed) & mask == mask
}

/// Sets bit `pos` in `words` and returns whether it was set before: the plain model the
/// tests check the stores' probe loops and the parallel scatter against.
///
/// # Panics
///
/// If `pos / 64` is not a valid index of `words`.
#[cfg(test)]
pub(crate) fn set_bit(words: &mut [u64], pos: u64) -> bool {
    let word = &mut words[(pos >> 6) as usize];
    let mask = 1u64 << (pos & 63);
    let was = *word & mask != 0;
    *word |= mask;
    was
}

/// Hints the CPU to bring the cache line holding `value` into the cache, without waiting for
/// it. Batch queries call this for every probe of a group of keys before testing any, so the
/// memory reads overlap instead of following one another. A no-op on targets other than
/// x86_64.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` requires SSE, which every x86_64 CPU has. It is a hint: it
    // reads nothing the program can observe and never faults, and the pointer comes from a
    // live reference anyway.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// [`prefetch`] of an address that may lie outside any allocation: a hint never faults and
/// reads nothing the program can observe, so any address is allowed.
#[inline(always)]
pub fn prefetch_address<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` requires SSE, which every x86_64 CPU has; it is a hint that
    // never faults, whatever the address.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// Ends the process as the standard collections do when the allocator refuses `bytes` for
/// a copy that cannot return an error (a `Clone`, an infallible conversion): through
/// [`handle_alloc_error`](alloc::alloc::handle_alloc_error). Constructors never call it; they
/// return [`Error::OutOfMemory`].
#[cold]
pub fn out_of_memory(bytes: usize) -> ! {
    let layout = Layout::from_size_align(bytes.max(1), 8).unwrap_or(Layout::new::<u64>());
    alloc::alloc::handle_alloc_error(layout)
}

/// Allocations from this size on are worth huge pages: below it the whole store fits in the
/// reach of the TLB anyway.
#[cfg(any(test, all(feature = "std", target_os = "linux")))]
pub const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// Asks Linux to back the 2 MiB-aligned interior of `memory` with transparent huge pages,
/// when it spans at least [`HUGE_PAGE_THRESHOLD`] bytes. Advisory only: the kernel may
/// decline, and nothing changes but speed. A no-op on other systems.
///
/// Filters probe random cache lines; with 4 KiB pages most probes of a large filter are a
/// TLB miss as well as a cache miss. Any filter storage (bit words, counters, aligned
/// blocks) can call this right after allocating.
#[cfg(all(feature = "std", target_os = "linux"))]
pub fn advise_huge_pages<T>(memory: &[T]) {
    const HUGE_PAGE: usize = 2 << 20;
    let bytes = core::mem::size_of_val(memory);
    if bytes < HUGE_PAGE_THRESHOLD {
        return;
    }
    let start = memory.as_ptr() as usize;
    let aligned_start = start.next_multiple_of(HUGE_PAGE);
    let aligned_end = (start + bytes) & !(HUGE_PAGE - 1);
    if aligned_end <= aligned_start {
        return;
    }
    let (range, len) = (
        aligned_start as *mut libc::c_void,
        aligned_end - aligned_start,
    );
    // SAFETY: the range [aligned_start, aligned_end) lies inside the live allocation of
    // `memory`; MADV_HUGEPAGE changes only how the kernel backs those pages, never their
    // contents, so no Rust-visible memory is affected.
    unsafe {
        libc::madvise(range, len, libc::MADV_HUGEPAGE);
    }
    // Fresh pages (a new mapping, the usual case for a large first allocation) get huge pages
    // when first touched. But an allocator may hand out memory an earlier allocation already
    // touched (glibc serves even large blocks from its heap once the process has freed a few),
    // and those pages stay small until the kernel's background scan gets to them, which can
    // take minutes. For them, ask for the huge pages now.
    if page_resident(aligned_start) {
        // SAFETY: as above; MADV_COLLAPSE (Linux 6.1 and later; older kernels return EINVAL,
        // which is ignored) copies the pages' contents into huge pages and never changes them.
        unsafe {
            libc::madvise(range, len, MADV_COLLAPSE);
        }
    }
}

/// `MADV_COLLAPSE` (Linux 6.1), spelled out because not every target's `libc` defines it.
#[cfg(all(feature = "std", target_os = "linux"))]
const MADV_COLLAPSE: libc::c_int = 25;

/// Whether the page at `addr` (page-aligned) is in memory already.
#[cfg(all(feature = "std", target_os = "linux"))]
fn page_resident(addr: usize) -> bool {
    let mut status = 0u8;
    // SAFETY: `addr` is page-aligned and lies in a live mapping (the caller's allocation);
    // mincore writes one status byte per page of the one-page range, into `status`.
    let ok = unsafe { libc::mincore(addr as *mut libc::c_void, 1, &mut status) } == 0;
    ok && status & 1 != 0
}

/// Asks the kernel for huge pages (Linux with `std` only; a no-op here).
#[cfg(not(all(feature = "std", target_os = "linux")))]
pub fn advise_huge_pages<T>(_memory: &[T]) {}
