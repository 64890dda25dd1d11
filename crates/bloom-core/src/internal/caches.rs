//! Cache sizes as Linux's sysfs writes them, in one place for the crates that read them: the
//! batch engine and the parallel build size their loops by the L2 and the last-level cache,
//! and the comparison's report header names every level.

/// The size of CPU 0's data or unified cache of `level` (1 to 4) as Linux reports it
/// (`/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}`); with `level` 0, that of
/// the highest level reported. `None` where sysfs does not say (another OS, a container
/// without it). Only with the `std` feature.
#[cfg(feature = "std")]
pub fn read_cache_bytes(level: u32) -> Option<usize> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|entry| {
        let path = entry.ok()?.path();
        let read = |name: &str| std::fs::read_to_string(path.join(name)).ok();
        let found: u32 = read("level")?.trim().parse().ok()?;
        let kind = read("type")?;
        if kind.trim() == "Instruction" || (level != 0 && found != level) {
            return None;
        }
        Some((found, parse_cache_size(&read("size")?)?))
    })
    .max()
    .map(|(_, size)| size)
}

/// The last-level cache's size in bytes (`read_cache_bytes(0)`), read once; 8 MiB where it
/// is not reported, and always without `std` (no file system to read).
pub fn last_level_cache_bytes() -> usize {
    const DEFAULT: usize = 8 << 20;
    #[cfg(feature = "std")]
    {
        static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *BYTES.get_or_init(|| read_cache_bytes(0).unwrap_or(DEFAULT))
    }
    #[cfg(not(feature = "std"))]
    DEFAULT
}

/// The L2 cache's size in bytes (`read_cache_bytes(2)`), read once; 1 MiB where it is not
/// reported, and always without `std` (the L2 of current x86 server cores is 1 to 2 MiB per
/// core; Apple's and Graviton's are larger and shared, so 1 MiB errs toward the loop with
/// prefetches).
pub fn l2_cache_bytes() -> usize {
    const DEFAULT: usize = 1 << 20;
    #[cfg(feature = "std")]
    {
        static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *BYTES.get_or_init(|| read_cache_bytes(2).unwrap_or(DEFAULT))
    }
    #[cfg(not(feature = "std"))]
    DEFAULT
}

/// A cache size as sysfs writes it in `/sys/devices/system/cpu/cpu*/cache/index*/size`:
/// `"32768K"`, `"8M"`, `"1G"` or a plain number of bytes, with or without a trailing
/// newline; `None` for anything else (an empty file, a unit without digits, an overflow).
///
/// # Examples
///
/// ```
/// use bloom_core::internal::caches::parse_cache_size;
///
/// assert_eq!(parse_cache_size("48K\n"), Some(48 << 10));
/// assert_eq!(parse_cache_size("banana"), None);
/// ```
pub fn parse_cache_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().last()? {
        (i, 'K') => (&text[..i], 1 << 10),
        (i, 'M') => (&text[..i], 1 << 20),
        (i, 'G') => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_cache_size("48K"), Some(48 << 10));
        assert_eq!(parse_cache_size("8M"), Some(8 << 20));
        assert_eq!(parse_cache_size("1G"), Some(1 << 30));
        assert_eq!(parse_cache_size("1024"), Some(1024));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size(""), None);
        assert_eq!(parse_cache_size("12 KB"), None);
        assert_eq!(parse_cache_size(&format!("{}G", usize::MAX)), None);
    }

    #[test]
    fn cache_levels_are_read_or_defaulted() {
        assert!(last_level_cache_bytes() >= 1 << 20);
        assert!(l2_cache_bytes() >= 64 << 10);
        #[cfg(feature = "std")]
        if let (Some(l2), Some(last)) = (read_cache_bytes(2), read_cache_bytes(0)) {
            assert!(l2 <= last, "L2 {l2} above the last level {last}");
        }
    }
}
