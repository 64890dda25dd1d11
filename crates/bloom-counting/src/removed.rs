//! What a successful removal did.

/// The outcome of a successful [`remove`](crate::CountingBloomFilter::remove): whether the
/// key's counters were decremented, or all of them are saturated and the key stays present
/// for good.
///
/// A counter that reached 15 no longer knows how many keys share it, so it is never
/// decremented (see [`CountingBloomFilter`](crate::CountingBloomFilter)). When every counter
/// of a key is saturated, removing it changes nothing and it is reported present however many
/// times it is removed: [`Saturated`](Removed::Saturated) tells the caller so. It usually means
/// the key was inserted 15 times or more, or the filter is far beyond its capacity.
///
/// # Examples
///
/// ```
/// use bloom_counting::{CountingBloomFilter, Removed};
///
/// let mut filter = CountingBloomFilter::new(1000, 0.01)?;
/// filter.insert("once");
/// assert_eq!(filter.remove("once")?, Removed::Decremented);
/// assert!(!filter.contains("once"));
///
/// for _ in 0..20 {
///     filter.insert("hot");
/// }
/// assert_eq!(filter.remove("hot")?, Removed::Saturated);
/// assert!(filter.contains("hot"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use = "a key whose counters are all saturated stays present after `remove`: check for \
              `Removed::Saturated`"]
pub enum Removed {
    /// The key's counters were decremented (all but any saturated ones, which keep 15): the
    /// removal took effect, and the key is reported absent once it has been removed as many
    /// times as it was inserted, unless other keys hold all its counters (a false positive)
    /// or its counters saturate later.
    Decremented,
    /// Every counter of the key is saturated (15), so none was decremented and the filter is
    /// unchanged. The key stays present whatever is removed later, until
    /// [`clear`](crate::CountingBloomFilter::clear).
    Saturated,
}

impl Removed {
    /// Whether the removal decremented the key's counters ([`Removed::Decremented`]).
    pub fn is_decremented(self) -> bool {
        self == Removed::Decremented
    }
}
