//! docs/tradeoffs.md as one section per CPU, so that a run on one machine rewrites its own
//! CPU's section and keeps the others as they are.
//!
//! A section is the lines from `<!-- cpu: KEY -->` to `<!-- end cpu -->`, both included,
//! `KEY` being the CPU's [`key`](crate::cpu::CpuInfo::key). The markers are HTML comments,
//! which rendered markdown does not show. Everything outside the sections (the page's
//! title and introduction) is the tool's to regenerate; a page without markers, as written
//! before there were sections, has none, and is replaced whole.

use std::fmt;

/// The line that closes every section.
pub const END_MARKER: &str = "<!-- end cpu -->";

const START_PREFIX: &str = "<!-- cpu: ";
const START_SUFFIX: &str = " -->";

/// The line that opens the section of the CPU whose key is `key`.
pub fn start_marker(key: &str) -> String {
    format!("{START_PREFIX}{key}{START_SUFFIX}")
}

/// The key a start-marker line names (`None` for any other line).
fn marker_key(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix(START_PREFIX)?
        .strip_suffix(START_SUFFIX)
        .map(str::trim)
}

/// One CPU's section of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The CPU's key, as its start marker names it.
    pub key: String,
    /// The section's text from the start of its start marker to the end of its end marker's
    /// line (not its line break, which is the page's), exactly as in the page.
    pub text: String,
}

impl Section {
    /// The section of the CPU `key` holding `body` (markdown) between the two markers, with
    /// a blank line before the end marker, so that no renderer takes it for the last line of
    /// a list or paragraph.
    pub fn new(key: &str, body: &str) -> Section {
        let mut text = start_marker(key);
        text.push('\n');
        text.push_str(body.trim_end());
        text.push_str("\n\n");
        text.push_str(END_MARKER);
        Section {
            key: key.to_string(),
            text,
        }
    }

    /// The section's title: the text of its first `## ` heading.
    pub fn title(&self) -> Option<&str> {
        self.text
            .lines()
            .find_map(|l| l.strip_prefix("## "))
            .map(str::trim)
    }
}

/// Why a page's sections cannot be told apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionError {
    /// The line (from 1) where the trouble shows.
    pub line: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for SectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for SectionError {}

/// The sections of `page`, in order; none for a page without markers.
///
/// # Errors
///
/// A [`SectionError`] when the markers do not pair up (a section opened inside another, an
/// end marker outside any, a section without its end), a start marker names no key, or two
/// sections name the same CPU: rather than guess which text is whose and lose a CPU's
/// section, the page is refused.
pub fn parse(page: &str) -> Result<Vec<Section>, SectionError> {
    let mut sections: Vec<Section> = Vec::new();
    // The open section: its key, the byte where it starts and its line.
    let mut open: Option<(String, usize, usize)> = None;
    let mut at = 0;
    for (index, line) in page.split_inclusive('\n').enumerate() {
        let number = index + 1;
        let error = |message: String| SectionError {
            line: number,
            message,
        };
        if let Some(key) = marker_key(line) {
            if let Some((other, _, opened)) = &open {
                return Err(error(format!(
                    "the section of {key:?} opens inside the one of {other:?} (line {opened}), \
                     which has no {END_MARKER} before it"
                )));
            }
            if key.is_empty() {
                return Err(error("a section marker names no CPU".into()));
            }
            if sections.iter().any(|s| s.key == key) {
                return Err(error(format!("a second section of {key:?}")));
            }
            open = Some((key.to_string(), at, number));
        } else if line.trim() == END_MARKER {
            let Some((key, start, _)) = open.take() else {
                return Err(error(format!("{END_MARKER} closes no section")));
            };
            let end = at + line.trim_end_matches(['\n', '\r']).len();
            sections.push(Section {
                key,
                text: page[start..end].to_string(),
            });
        }
        at += line.len();
    }
    match open {
        Some((key, _, opened)) => Err(SectionError {
            line: opened,
            message: format!("the section of {key:?} has no {END_MARKER}"),
        }),
        None => Ok(sections),
    }
}

/// `sections` with `new` in the place of the section of its CPU, or after all of them when
/// there is none; the others unchanged and in their order.
pub fn replace(mut sections: Vec<Section>, new: Section) -> Vec<Section> {
    match sections.iter_mut().find(|s| s.key == new.key) {
        Some(old) => *old = new,
        None => sections.push(new),
    }
    sections
}

/// The page: `preamble`, then the sections, each after a blank line and on lines of its
/// own; each section's text as it is.
pub fn assemble(preamble: &str, sections: &[Section]) -> String {
    let mut page = preamble.trim_end().to_string();
    page.push('\n');
    for section in sections {
        page.push('\n');
        page.push_str(&section.text);
        page.push('\n');
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREAMBLE: &str = "# Trade-offs\n\nOne section per CPU.\n";

    fn amd() -> Section {
        Section::new(
            "amd-epyc-f26-m2-avx512",
            "## AMD EPYC (AuthenticAMD family 26 model 2): AVX-512, L3 32 MiB\n\n| a | b |\n",
        )
    }

    /// Another machine's section, with what a hand or another version might leave in it:
    /// trailing spaces, a CRLF line, no line break after its end marker.
    const INTEL_TEXT: &str = "<!-- cpu: intel-xeon-f6-m207-avx512 -->\n\
        ## Intel Xeon (GenuineIntel family 6 model 207): AVX-512, L3 260 MiB  \n\
        \n\
        Its figures.\r\n\
        <!-- end cpu -->";

    #[test]
    fn rewriting_one_section_keeps_the_other_byte_for_byte() {
        let page = format!("{PREAMBLE}\n{}\n{INTEL_TEXT}", amd().text);
        let sections = parse(&page).unwrap();
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0], amd());
        assert_eq!(sections[1].key, "intel-xeon-f6-m207-avx512");
        assert_eq!(sections[1].text, INTEL_TEXT);
        assert_eq!(
            sections[1].title(),
            Some("Intel Xeon (GenuineIntel family 6 model 207): AVX-512, L3 260 MiB")
        );

        // A new run on the AMD machine: its section changes, in its place.
        let rerun = Section::new(
            "amd-epyc-f26-m2-avx512",
            "## AMD EPYC (AuthenticAMD family 26 model 2): AVX-512, L3 32 MiB\n\nnew figures\n",
        );
        let merged = assemble(PREAMBLE, &replace(sections, rerun.clone()));
        assert!(merged.starts_with(PREAMBLE));
        assert!(merged.contains(INTEL_TEXT));
        assert!(!merged.contains("| a | b |"));
        let again = parse(&merged).unwrap();
        assert_eq!(again.len(), 2);
        assert_eq!(again[0], rerun);
        assert_eq!(again[1].text, INTEL_TEXT);
        assert!(merged.find("new figures").unwrap() < merged.find(INTEL_TEXT).unwrap());

        // A run on a third CPU comes after the others, which stay as they were.
        let third = Section::new("amd-epyc-f23-m1-avx2", "## AMD EPYC (Zen 1)\n");
        let merged = assemble(PREAMBLE, &replace(again, third.clone()));
        let keys: Vec<String> = parse(&merged).unwrap().into_iter().map(|s| s.key).collect();
        assert_eq!(
            keys,
            [
                "amd-epyc-f26-m2-avx512",
                "intel-xeon-f6-m207-avx512",
                "amd-epyc-f23-m1-avx2"
            ]
        );
        assert!(merged.contains(INTEL_TEXT));
        assert!(merged.ends_with(&format!("{}\n", third.text)));
    }

    #[test]
    fn a_page_without_markers_is_replaced_by_one_section() {
        let old = "# Trade-offs\n\nGenerated by `bloom-compare --write-docs`.\n\n\
                   | run | |\n|---|---|\n| CPU | AMD EPYC (2 cores) |\n\n## Choosing a variant\n";
        let sections = parse(old).unwrap();
        assert!(sections.is_empty());
        let page = assemble(PREAMBLE, &replace(sections, amd()));
        assert_eq!(page, format!("{PREAMBLE}\n{}\n", amd().text));
        assert!(!page.contains("AMD EPYC (2 cores)"));
        assert_eq!(parse(&page).unwrap(), [amd()]);
        assert_eq!(parse("").unwrap(), []);
    }

    #[test]
    fn markers_that_do_not_pair_up_are_refused() {
        let unclosed = format!("{PREAMBLE}<!-- cpu: a -->\n## A\n");
        let e = parse(&unclosed).unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("\"a\" has no <!-- end cpu -->"), "{e}");

        let nested = "<!-- cpu: a -->\n<!-- cpu: b -->\n<!-- end cpu -->\n";
        let e = parse(nested).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.to_string()
                .starts_with("line 2: the section of \"b\" opens inside")
        );

        let stray = "text\n<!-- end cpu -->\n";
        assert_eq!(parse(stray).unwrap_err().line, 2);

        let twice = format!("{}\n{}\n", amd().text, amd().text);
        let e = parse(&twice).unwrap_err();
        assert!(e.message.contains("a second section"), "{e}");

        let nameless = "<!-- cpu:  -->\n<!-- end cpu -->\n";
        assert!(parse(nameless).is_err());
    }
}
