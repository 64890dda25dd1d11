//! Pins bloom-core's documented surface (docs/design.md, "bloom-core's public surface").
//!
//! Every public item in `src/` (top-level items, `pub` methods and constants of inherent
//! impls) must either be listed in [`SURFACE`], the surface documented on purpose, or carry
//! `#[doc(hidden)]` among the attributes above it, or live in the hidden `internal` module
//! (`src/internal.rs`, `src/internal/`). A new public item fails this test until it is hidden,
//! made `pub(crate)`, or added to the list; a listed item that is gone or hidden fails it too,
//! so the list stays the surface. No macro is exported: the crates share traits and
//! functions, never macros.
//!
//! It reads the source as rustfmt lays it out (items at column 0, methods indented by four
//! spaces, attributes on their own lines), which is all it needs: a scan, not a parser.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The documented surface: item paths as a user names them (`hash::hash_key`), methods and
/// associated constants as `Type::name`.
const SURFACE: &[&str] = &[
    // The crate root.
    "Error",
    "Error::invalid",
    "Error::corrupt",
    "Error::check_same",
    "IoError",
    "IoError::kind",
    "IoError::get_ref",
    "Filter",
    "Keyed",
    "Persist",
    "PersistIo",
    "bits",
    "format",
    "hash",
    "keys",
    "math",
    // bits
    "bits::Word",
    "bits::Words",
    "bits::Words::zeroed",
    "bits::Words::len",
    "bits::Words::is_empty",
    "bits::Words::as_ptr",
    "bits::Words::as_mut_ptr",
    "bits::Words::as_slice",
    "bits::Words::as_mut_slice",
    "bits::Words::writable",
    "bits::Words::mark_written",
    "bits::Words::is_written",
    "bits::Words::clear",
    "bits::Words::heap_bytes",
    "bits::Words::cast",
    "bits::Words::from_le_bytes",
    "bits::Words::try_clone",
    "bits::Words::snapshot",
    "bits::Bits",
    "bits::BitStore",
    "bits::Bits::new",
    "bits::Bits::from_words",
    "bits::Bits::from_parts",
    "bits::Bits::from_le_bytes",
    "bits::Bits::len",
    "bits::Bits::is_empty",
    "bits::Bits::get",
    "bits::Bits::set",
    "bits::Bits::as_words",
    "bits::Bits::as_words_mut",
    "bits::Bits::count_ones",
    "bits::Bits::fill_ratio",
    "bits::Bits::clear",
    "bits::Bits::union_with",
    "bits::Bits::intersect_with",
    "bits::Bits::heap_bytes",
    "bits::Bits::le_bytes_len",
    "bits::Bits::into_words",
    "bits::AtomicBitStore",
    "bits::Bits::as_words_for_write",
    "bits::Bits::clear_mut",
    "bits::Bits::try_to_bit_store",
    "bits::Bits::to_bit_store",
    // format
    "format::MAGIC",
    "format::VERSION",
    "format::HEADER_LEN",
    "format::FRAMING_LEN",
    "format::PAYLOAD_ALIGN",
    "format::padding_len",
    "format::payload_offset",
    "format::Variant",
    "format::Variant::ALL",
    "format::Variant::from_tag",
    "format::Variant::type_names",
    "format::HashScheme",
    "format::HashScheme::ALL",
    "format::HashScheme::from_tag",
    "format::Frame",
    "format::checksum",
    "format::decode",
    "format::ParquetHeader",
    "format::ParquetHeader::write",
    "format::ParquetHeader::read",
    "format::BITSET_MIN_BYTES",
    "format::BITSET_MAX_BYTES",
    "format::parquet_num_bytes",
    // hash
    "hash::DEFAULT_SEED",
    "hash::KeyHasher",
    "hash::KeyHasher::new",
    "hash::KeyHasher::finish128",
    "hash::BuildKeyHasher",
    "hash::hash_key",
    "hash::widen",
    "hash::hash_bytes",
    "hash::random_seed",
    "hash::SecretKey",
    "hash::SecretKey::from_bytes",
    "hash::SecretKey::random",
    "hash::SecretKey::to_bytes",
    "hash::SecretKey::fingerprint",
    "hash::Hashing",
    "hash::Hashing::hash",
    "hash::Hashing::hash64",
    "hash::Hashing::hash64_batch",
    "hash::Hashing::seed",
    "hash::Hashing::is_keyed",
    "hash::KeyHashing",
    "hash::ParquetHash",
    "hash::ParquetHash::hash",
    "hash::ParquetHash::hash_bytes",
    "hash::Hashing::scheme",
    // keys
    "keys::mix",
    "keys::SplitMix64",
    "keys::SplitMix64::next_u64",
    "keys::SplitMix64::below",
    "keys::distinct_keys",
    "keys::RepeatStream",
    "keys::RepeatStream::new",
    "keys::RepeatStream::num_new",
    "keys::RepeatStream::next_id",
    // math
    "math::MAX_NUM_BITS",
    "math::MAX_NUM_HASHES",
    "math::optimal_num_bits",
    "math::optimal_num_hashes",
    "math::classic_fpr",
    "math::paired_fpr",
    "math::fpr_from_fill",
    "math::estimate_cardinality",
    "math::blocked_fpr",
    "math::blocked_fpr_distinct",
    "math::blocked_fpr_replacement",
    "math::multiblock_fpr",
    "math::blocked_num_bits",
    "math::bits_per_key_lower_bound",
    "engine",
    "engine::AtomicBitStore",
    "engine::BitStore",
    "engine::DEFAULT_FPR",
    "engine::Engine",
    "engine::Engine::as_bytes",
    "engine::Engine::bits",
    "engine::Engine::clear",
    "engine::Engine::contains",
    "engine::Engine::contains_batch",
    "engine::Engine::contains_batch_into",
    "engine::Engine::contains_hash",
    "engine::Engine::count_ones",
    "engine::Engine::estimated_fpr",
    "engine::Engine::estimated_len",
    "engine::Engine::expected_fpr",
    "engine::Engine::fill_ratio",
    "engine::Engine::from_bits",
    "engine::Engine::from_bytes",
    "engine::Engine::from_bytes_with_key",
    "engine::Engine::from_layout",
    "engine::Engine::hash",
    "engine::Engine::hashing",
    "engine::Engine::insert",
    "engine::Engine::insert_all",
    "engine::Engine::insert_hash",
    "engine::Engine::insert_hashes",
    "engine::Engine::intersect",
    "engine::Engine::into_atomic",
    "engine::Engine::into_plain",
    "engine::Engine::layout",
    "engine::Engine::memory_usage",
    "engine::Engine::new",
    "engine::Engine::num_bits",
    "engine::Engine::num_hashes",
    "engine::Engine::seed",
    "engine::Engine::to_bytes",
    "engine::Engine::to_owned",
    "engine::Engine::to_plain",
    "engine::Engine::union",
    "engine::Engine::verify",
    "engine::Engine::with_params",
    "engine::Engine::with_seed",
    "engine::Engine::with_random_seed",
    "engine::Engine::write_to",
    "engine::Engine::read_from",
    "engine::Layout",
    "engine::LeBits",
    "engine::Storage",
    "engine::Writable",
    "engine::Engine::par_contains_batch",
    // The engine of a layout hashed as Parquet hashes.
    "engine::Engine::hash_bytes",
    "engine::Engine::contains_bytes",
    "engine::Engine::contains_i32",
    "engine::Engine::contains_i64",
    "engine::Engine::contains_f32",
    "engine::Engine::contains_f64",
    "engine::Engine::num_bytes",
    "engine::Engine::bitset_bytes",
    "engine::Engine::to_parquet_bytes",
    "engine::Engine::with_num_bytes",
    "engine::Engine::from_bitset",
    "engine::Engine::from_parquet_bytes",
    "engine::Engine::insert_bytes",
    "engine::Engine::insert_i32",
    "engine::Engine::insert_i64",
    "engine::Engine::insert_f32",
    "engine::Engine::insert_f64",
    "engine::Engine::fold_to_fpp",
    "engine::Engine::par_insert_all",
    "engine::Engine::par_insert_iter",
    "engine::Probe",
    "engine::BlockLayout",
    "engine::Probe::is_available",
    "engine::Probe::best",
    "engine::Probe::check",
    "engine::Engine::probe",
    "engine::Engine::with_probe",
    "engine::Engine::is_aligned",
    "engine::Engine::num_blocks",
    "engine::Engine::optimal_num_hashes",
    "engine::Engine::fold",
    "engine::Engine::fold_to_fit",
];

/// A public item found in the source.
#[derive(Debug)]
struct Item {
    path: String,
    hidden: bool,
    location: String,
    /// For a name a public module re-exports from the hidden module (`pub use
    /// crate::internal::simd::Probe`), the path it is defined at, whose methods it shows.
    reexport_of: Option<String>,
}

#[test]
fn every_public_item_is_documented_on_purpose_or_hidden() {
    let items = public_items();
    let surface: BTreeSet<&str> = SURFACE.iter().copied().collect();
    assert_eq!(surface.len(), SURFACE.len(), "SURFACE lists an item twice");

    let undocumented_intent: Vec<String> = items
        .iter()
        .filter(|item| !item.hidden && !surface.contains(item.path.as_str()))
        .map(|item| format!("{} ({})", item.path, item.location))
        .collect();
    assert!(
        undocumented_intent.is_empty(),
        "public items neither in SURFACE nor #[doc(hidden)] (hide them, make them pub(crate), \
         move them to `internal`, or list them as documented surface):\n  {}",
        undocumented_intent.join("\n  ")
    );

    let stale: Vec<&str> = surface
        .iter()
        .copied()
        .filter(|path| !items.iter().any(|item| item.path == *path && !item.hidden))
        .collect();
    assert!(
        stale.is_empty(),
        "SURFACE lists items that are not public and documented any more:\n  {}",
        stale.join("\n  ")
    );
}

/// The hidden module is declared hidden, so everything in it is.
#[test]
fn the_internal_module_is_hidden() {
    let items = public_items();
    let internal = items
        .iter()
        .find(|item| item.path == "internal")
        .expect("lib.rs declares `pub mod internal`");
    assert!(internal.hidden, "`pub mod internal` must be #[doc(hidden)]");
}

/// No macro is exported. Exporting a `macro_rules!` takes an attribute on it, and a macro of
/// this crate carries none but `#[cfg(..)]`: each is used only in the file that defines it.
#[test]
fn no_macro_is_exported() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut macros = Vec::new();
    for path in rust_files(&src) {
        let text = fs::read_to_string(&path).expect("read source");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(name) = line.trim_start().strip_prefix("macro_rules! ") else {
                continue;
            };
            let name = name.trim_end_matches('{').trim();
            let attrs: Vec<&str> = attributes_above(&lines, i)
                .into_iter()
                .filter(|a| a.starts_with("#[") && !a.starts_with("#[cfg("))
                .collect();
            assert!(
                attrs.is_empty(),
                "macro {name} ({}:{}) carries {attrs:?}: bloom-core exports no macro",
                path.display(),
                i + 1
            );
            macros.push(name.to_string());
        }
    }
    // The scan reads the macros there are, so an empty pass proves nothing.
    for known in ["has", "writable"] {
        assert!(
            macros.iter().any(|m| m == known),
            "the scan missed {known}!"
        );
    }
}

/// The scan finds what it must: a few known items of each kind, hidden or not.
#[test]
fn the_scan_sees_every_kind_of_item() {
    let items = public_items();
    let find = |path: &str| {
        items
            .iter()
            .find(|item| item.path == path)
            .unwrap_or_else(|| panic!("the scan missed {path}"))
    };
    assert!(find("internal::probe::Probes").hidden);
    assert!(find("internal::probe::reduce").hidden);
    assert!(find("bits::Bits::pair_set").hidden);
    assert!(find("internal::memory::advise_huge_pages").hidden);
    assert!(!find("bits::Bits::new").hidden);
    assert!(!find("format::Variant::ALL").hidden);
    assert!(!find("Error").hidden);
    // A type of the hidden module that a public one re-exports shows its methods there.
    assert!(!find("engine::Probe::best").hidden);
    assert!(find("internal::simd::Probe::best").hidden);
    // Methods of a hidden type are hidden with it; items of private inline modules, trait
    // impls and test modules are not public at all.
    assert!(find("internal::probe::Probes::new").hidden);
    assert!(find("internal::batch::Probed::new").hidden);
    assert!(!items.iter().any(|item| item.path.ends_with("::fmt")));
    assert!(!items.iter().any(|item| item.path.contains("tests")));
    // The engine's private `sealed` module is not public; the seal of `Keyed` is, hidden.
    let seals: Vec<&str> = items
        .iter()
        .filter(|item| item.path.contains("Sealed"))
        .map(|item| item.path.as_str())
        .collect();
    assert_eq!(seals, ["internal::Sealed"]);
    assert!(find("internal::Sealed").hidden);
}

fn public_items() -> Vec<Item> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    let public_modules: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches(';').to_string())
        .collect();
    let files: Vec<File> = rust_files(&src)
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(&src).expect("under src");
            let parts: Vec<String> = relative
                .with_extension("")
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .filter(|part| part != "mod")
                .collect();
            let in_internal = parts[0] == "internal";
            // A private file of a public module's folder (`format/fields.rs`) holds that
            // module's items, which its `mod.rs` re-exports: they count as the module's.
            let module = if in_internal {
                parts.join("::")
            } else {
                parts[0].clone()
            };
            // Items of the root and of private modules (re-exported at the root, as `Error`
            // and `Filter` are) are named from the root; the others from their module.
            let prefix = if module == "lib" || !(in_internal || public_modules.contains(&module)) {
                String::new()
            } else {
                format!("{module}::")
            };
            File {
                name: relative.display().to_string(),
                text: fs::read_to_string(&path).expect("read source"),
                prefix,
                in_internal,
            }
        })
        .collect();
    // Types first, then their methods, so an impl may come before or after its type.
    let mut items = Vec::new();
    for file in &files {
        top_level_items(file, &mut items);
    }
    for file in &files {
        inherent_methods(file, &mut items);
    }
    items
}

/// One source file of the crate.
struct File {
    name: String,
    text: String,
    /// How the file's items are named (`hash::`, or nothing for the root).
    prefix: String,
    /// Part of the hidden module, whose items are hidden with it.
    in_internal: bool,
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The `pub` items at column 0. Lines inside blocks are indented, so test modules, private
/// inline modules and macro bodies are never read as items.
fn top_level_items(file: &File, items: &mut Vec<Item>) {
    let lines: Vec<&str> = file.text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let location = format!("{}:{}", file.name, i + 1);
        if let Some(rest) = line.strip_prefix("pub ") {
            // A `use` list may span lines.
            let mut declaration = rest.to_string();
            for next in &lines[i + 1..] {
                if declaration.contains(';') || !declaration.starts_with("use ") {
                    break;
                }
                declaration.push(' ');
                declaration.push_str(next.trim());
            }
            let hidden = file.in_internal || is_hidden(&lines, i);
            let from_internal = declaration
                .strip_prefix("use crate::internal::")
                .filter(|path| !path.contains('{'));
            for name in item_names(&declaration) {
                items.push(Item {
                    path: format!("{}{name}", file.prefix),
                    hidden,
                    location: location.clone(),
                    reexport_of: from_internal
                        .map(|path| format!("internal::{}", path.trim_end_matches(';'))),
                });
            }
        }
    }
}

/// The `pub` methods and constants (four spaces in) of every inherent impl at column 0 of a
/// public type; hidden when the type or the item is.
fn inherent_methods(file: &File, items: &mut Vec<Item>) {
    let lines: Vec<&str> = file.text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with("impl") {
            continue;
        }
        let (header, body) = impl_header(&lines, i);
        let Some(ty) = inherent_impl_type(&header) else {
            continue;
        };
        let owner = format!("{}{ty}", file.prefix);
        // A type that is not a public item (a private helper) has no public methods.
        let Some(owner_hidden) = items
            .iter()
            .find(|item| item.path == owner)
            .map(|o| o.hidden)
        else {
            continue;
        };
        let end = lines[body..]
            .iter()
            .position(|l| l.starts_with('}'))
            .map_or(lines.len(), |k| body + k);
        // The type's own path, and each public name it is re-exported under.
        let mut owners = vec![(owner.clone(), owner_hidden)];
        owners.extend(
            items
                .iter()
                .filter(|item| item.reexport_of.as_ref() == Some(&owner))
                .map(|item| (item.path.clone(), item.hidden)),
        );
        for j in body..end {
            if let Some(rest) = lines[j].strip_prefix("    pub ") {
                for name in item_names(rest) {
                    for (owner, owner_hidden) in &owners {
                        items.push(Item {
                            path: format!("{owner}::{name}"),
                            hidden: *owner_hidden || is_hidden(&lines, j),
                            location: format!("{}:{}", file.name, j + 1),
                            reexport_of: None,
                        });
                    }
                }
            }
        }
    }
}

/// The names a `pub` item line declares (after `pub `): one for most items, each name of a
/// `use` list. Empty for what is not an item (a field).
fn item_names(rest: &str) -> Vec<String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    // `const` qualifies a `fn` (`pub const fn`); before anything else it is the item.
    let mut k = 0;
    while k + 1 < words.len()
        && (matches!(words[k], "unsafe" | "async" | "extern" | "\"C\"")
            || (words[k] == "const" && words[k + 1] == "fn"))
    {
        k += 1;
    }
    let Some(&kind) = words.get(k) else {
        return Vec::new();
    };
    let rest = words[k + 1..].join(" ");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    match kind {
        "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union" | "mod" => {
            vec![ident(&rest)]
        }
        "use" => {
            let path = rest.trim_end_matches(';');
            let names: Vec<&str> = match (path.find('{'), path.rfind('}')) {
                (Some(open), Some(close)) => path[open + 1..close]
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect(),
                _ => vec![path],
            };
            names
                .iter()
                .map(|n| match n.split_once(" as ") {
                    Some((_, alias)) => alias.trim().to_string(),
                    None => n.rsplit("::").next().unwrap_or(n).to_string(),
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The attribute and comment lines right above line `i`, trimmed.
fn attributes_above<'a>(lines: &[&'a str], i: usize) -> Vec<&'a str> {
    lines[..i]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("#[") || l.starts_with("//"))
        .collect()
}

fn is_hidden(lines: &[&str], i: usize) -> bool {
    attributes_above(lines, i).contains(&"#[doc(hidden)]")
}

/// The header of the `impl` at line `i`, up to its opening brace, and the line after it.
fn impl_header(lines: &[&str], i: usize) -> (String, usize) {
    let mut header = String::new();
    for (j, line) in lines.iter().enumerate().skip(i) {
        header.push(' ');
        header.push_str(line.trim());
        if line.trim_end().ends_with('{') {
            return (header, j + 1);
        }
        if line.trim_end().ends_with("{}") {
            return (header, j);
        }
    }
    (header, lines.len())
}

/// The type of an inherent impl (`impl<W: Word> Words<W> {` gives `Words`); `None` for a
/// trait impl.
fn inherent_impl_type(header: &str) -> Option<String> {
    let header = header.trim().strip_prefix("impl")?;
    // Skip the impl's generics, which may nest (`impl<T: Into<u64>>`).
    let mut depth = 0;
    let mut start = header.len();
    for (pos, c) in header.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 && !c.is_whitespace() => {
                start = pos;
                break;
            }
            _ => {}
        }
    }
    let target = header[start..].trim_end_matches('{').trim();
    if target.contains(" for ") {
        return None;
    }
    Some(
        target
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect(),
    )
}
