//! Holds bloom-core's layering: one file per idea, each importing only files below it, so no
//! import circle (docs/design.md, "bloom-core's layers").
//!
//! The test reads `src/`, takes every `crate::` path in code (not in comments: a doc comment
//! may point up) and every `super::` path of a file's own `use` lines (its sibling files),
//! resolves each to the file of the longest module path it names, and fails on a circle in
//! the resulting graph, naming its files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`, by module path (`internal::batch`, `format`, `` for lib.rs).
fn modules(dir: &Path, root: &Path, out: &mut BTreeMap<String, PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            modules(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix(root)
                .expect("below src/")
                .with_extension("");
            let parts: Vec<String> = relative
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .filter(|p| p != "mod" && p != "lib")
                .collect();
            out.insert(parts.join("::"), path);
        }
    }
}

/// The module paths a file's code names through `crate::` (and, in the file's own `use`
/// lines, through `super::`, the module `parent`), groups (`crate::a::{b, c}`) expanded one
/// level.
fn named_paths(source: &str, parent: &str) -> Vec<String> {
    let above = if parent.is_empty() {
        "crate::".to_owned()
    } else {
        format!("crate::{parent}::")
    };
    let code: String = source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| match line.strip_prefix("use super::") {
            Some(rest) => format!("use {above}{rest}"),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let tail = &rest[at + "crate::".len()..];
        let path_len = tail
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(tail.len());
        let path = tail[..path_len].trim_end_matches(':');
        found.push(path.to_owned());
        if tail[path_len..].starts_with('{') && path_len > 0 {
            let group = &tail[path_len + 1..];
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let item = item.trim();
                if item.starts_with(|c: char| c.is_lowercase()) && item != "self" {
                    let first = item.split("::").next().unwrap_or(item);
                    found.push(format!("{path}::{first}"));
                }
            }
        }
        rest = &tail[path_len..];
    }
    found
}

/// The longest module of `modules` that `path` starts with.
fn resolve<'a>(path: &str, modules: &'a BTreeMap<String, PathBuf>) -> Option<&'a String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len()).rev().find_map(|n| {
        modules
            .get_key_value(&parts[..n].join("::"))
            .map(|(k, _)| k)
    })
}

/// A circle in `graph`, as the modules along it, if there is one.
fn find_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut circle = stack[at..].to_vec();
            circle.push(node.to_owned());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_owned());
        for next in &graph[node] {
            if let Some(circle) = visit(next, graph, done, stack) {
                return Some(circle);
            }
        }
        stack.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

/// The import graph of `src/`: each module to the modules its code names.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    modules(&root, &root, &mut files);
    files
        .iter()
        .map(|(module, path)| {
            let source = fs::read_to_string(path).expect("a source file is readable");
            // `super` of module `a::b` is `a`, whether the file is `a/b.rs` or `a/b/mod.rs`.
            let parent = module.rsplit_once("::").map_or("", |(parent, _)| parent);
            let targets = named_paths(&source, parent)
                .iter()
                .filter_map(|p| resolve(p, &files))
                // The crate root only declares modules: a path through it names one of them.
                .filter(|t| *t != module && !t.is_empty())
                .cloned()
                .collect();
            (module.clone(), targets)
        })
        .collect()
}

#[test]
fn no_import_circle() {
    let graph = import_graph();
    assert!(graph.len() > 10, "src/ was not read: {graph:?}");
    if let Some(circle) = find_circle(&graph) {
        panic!("bloom-core imports in a circle: {}", circle.join(" -> "));
    }
}

#[test]
fn the_check_finds_a_circle() {
    // The check itself: paths of every form resolve, and a circle is reported.
    let modules: BTreeMap<String, PathBuf> = ["a", "b", "b::c", ""]
        .iter()
        .map(|m| (m.to_string(), PathBuf::new()))
        .collect();
    let named = named_paths(
        "use crate::b::{c::X, Y};\n// crate::a in a comment\nlet _ = crate::a::f();",
        "",
    );
    assert_eq!(named_paths("use super::c::Z;", "b"), ["b::c::Z"]);
    let resolved: BTreeSet<&String> = named.iter().filter_map(|p| resolve(p, &modules)).collect();
    let expected: BTreeSet<&String> = ["b", "b::c", "a"]
        .iter()
        .filter_map(|m| modules.get_key_value(*m).map(|(k, _)| k))
        .collect();
    assert_eq!(resolved, expected);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.insert("a".into(), ["b".into()].into());
    graph.insert("b".into(), ["b::c".into()].into());
    graph.insert("b::c".into(), BTreeSet::new());
    assert_eq!(find_circle(&graph), None);
    graph.get_mut("b::c").unwrap().insert("a".into());
    assert_eq!(
        find_circle(&graph),
        Some(vec!["a".into(), "b".into(), "b::c".into(), "a".into()])
    );
}
