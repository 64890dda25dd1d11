//! Cache sizes as Linux's sysfs writes them, in one place for the crates that read them: the
//! batch engine sizes its loops by the last-level cache, and the comparison's report header
//! names every level.

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
}
