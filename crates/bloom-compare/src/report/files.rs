//! Writing a report to files (markdown, CSV, JSON, SVG) and reading the data back.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::report::sections::SectionError;
use crate::report::{Report, Row, markdown, plots};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `report.md`: the tables.
    Markdown,
    /// `report.csv`: one line per row.
    Csv,
    /// `report.json`: header, candidates, rows.
    Json,
    /// `plots/*.svg`.
    Svg,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 4] = [Format::Markdown, Format::Csv, Format::Json, Format::Svg];
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Markdown => "markdown",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Svg => "svg",
        })
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "markdown" | "md" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            "svg" | "plots" => Ok(Format::Svg),
            other => Err(format!(
                "unknown format {other:?} (expected markdown, csv, json or svg)"
            )),
        }
    }
}

/// A failure to write or read report files.
#[derive(Debug)]
pub enum OutputError {
    /// A file could not be written or read.
    Io(PathBuf, std::io::Error),
    /// CSV could not be written or parsed.
    Csv(csv::Error),
    /// JSON could not be written or parsed.
    Json(serde_json::Error),
    /// A plot could not be drawn.
    Plot(String),
    /// A file is where a folder must be (the output folder, or its `plots`).
    NotAFolder(PathBuf),
    /// A folder is where an output file must be.
    NotAFile(PathBuf),
    /// The page whose sections a run keeps (docs/tradeoffs.md) has markers that do not pair
    /// up.
    Sections(PathBuf, SectionError),
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            OutputError::Csv(e) => write!(f, "CSV: {e}"),
            OutputError::Json(e) => write!(f, "JSON: {e}"),
            OutputError::Plot(e) => write!(f, "plot: {e}"),
            OutputError::NotAFolder(path) => {
                write!(f, "{} is a file, not a folder", path.display())
            }
            OutputError::NotAFile(path) => write!(
                f,
                "{} is a folder, where the report writes a file",
                path.display()
            ),
            OutputError::Sections(path, e) => write!(
                f,
                "{}, {e}; its sections run from a `<!-- cpu: KEY -->` line to a \
                 `<!-- end cpu -->` line, one per CPU: mend them, or move the file away to start \
                 a new page",
                path.display()
            ),
        }
    }
}

impl std::error::Error for OutputError {}

fn write_file(path: &Path, contents: &[u8]) -> Result<(), OutputError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| OutputError::Io(parent.to_path_buf(), e))?;
    }
    std::fs::write(path, contents).map_err(|e| OutputError::Io(path.to_path_buf(), e))
}

/// The rows as CSV, with a header line.
///
/// # Errors
///
/// When serialisation fails (it does not for rows made by a sweep).
pub fn to_csv(rows: &[Row]) -> Result<String, OutputError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row).map_err(OutputError::Csv)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| OutputError::Io(PathBuf::from("(CSV buffer)"), e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Reads rows written by [`to_csv`].
///
/// # Errors
///
/// When the text is not such CSV.
pub fn from_csv(text: &str) -> Result<Vec<Row>, OutputError> {
    let mut rows = csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<Row>, _>>()
        .map_err(OutputError::Csv)?;
    rows.iter_mut().for_each(Row::fill_derived);
    Ok(rows)
}

/// The report as pretty JSON.
///
/// # Errors
///
/// When serialisation fails (it does not for reports made by a sweep).
pub fn to_json(report: &Report) -> Result<String, OutputError> {
    serde_json::to_string_pretty(report).map_err(OutputError::Json)
}

/// Reads a report written by [`to_json`].
///
/// # Errors
///
/// When the text is not such JSON.
pub fn from_json(text: &str) -> Result<Report, OutputError> {
    let mut report: Report = serde_json::from_str(text).map_err(OutputError::Json)?;
    report.rows.iter_mut().for_each(Row::fill_derived);
    Ok(report)
}

/// The files [`write_all`] writes for `formats` under `dir`, in its order: `report.md`,
/// `report.csv`, `report.json`, `plots/*.svg`.
pub fn paths(dir: &Path, formats: &[Format]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for format in formats {
        match format {
            Format::Markdown => paths.push(dir.join("report.md")),
            Format::Csv => paths.push(dir.join("report.csv")),
            Format::Json => paths.push(dir.join("report.json")),
            Format::Svg => {
                paths.extend(plots::NAMES.iter().map(|name| dir.join("plots").join(name)))
            }
        }
    }
    paths
}

/// Checks, before a run measures anything, that the files of `formats` can be written
/// under `dir` (see [`check_targets`]); returns those that already exist, which writing
/// will replace.
///
/// # Errors
///
/// As [`check_targets`].
pub fn prepare(dir: &Path, formats: &[Format]) -> Result<Vec<PathBuf>, OutputError> {
    check_targets(dir, &paths(dir, formats))
}

/// Checks that the files `targets`, each under `dir`, can be written: `dir` is a folder
/// (created, with its parents, if missing) in which a file can be created, no target is a
/// folder and no folder a target needs is a file. Returns the targets that already exist.
/// A run calls this before measuring, so that a bad output place fails in milliseconds
/// rather than after the whole sweep.
///
/// # Errors
///
/// [`OutputError::NotAFolder`] or [`OutputError::NotAFile`] for a path of the wrong kind,
/// [`OutputError::Io`] when `dir` cannot be created or written in.
pub fn check_targets(dir: &Path, targets: &[PathBuf]) -> Result<Vec<PathBuf>, OutputError> {
    if dir.exists() && !dir.is_dir() {
        return Err(OutputError::NotAFolder(dir.to_path_buf()));
    }
    let mut existing = Vec::new();
    for target in targets {
        if target.is_dir() {
            return Err(OutputError::NotAFile(target.clone()));
        }
        let mut folder = target.parent();
        while let Some(f) = folder.filter(|f| f.starts_with(dir) && *f != dir) {
            if f.exists() && !f.is_dir() {
                return Err(OutputError::NotAFolder(f.to_path_buf()));
            }
            folder = f.parent();
        }
        if target.exists() {
            existing.push(target.clone());
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| OutputError::Io(dir.to_path_buf(), e))?;
    // A file created and removed again: the folder takes new files (permissions, a
    // read-only file system), which its metadata alone does not tell.
    let probe = dir.join(format!(".bloom-compare-write-check-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| OutputError::Io(dir.to_path_buf(), e))?;
    std::fs::remove_file(&probe).map_err(|e| OutputError::Io(probe.clone(), e))?;
    Ok(existing)
}

/// Writes `report` in each of `formats` under `dir` (the files of [`paths`]); returns the
/// paths written. Files of an earlier report there are replaced.
///
/// # Errors
///
/// The first file that cannot be written.
pub fn write_all(
    report: &Report,
    dir: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, OutputError> {
    let mut written = Vec::new();
    for format in formats {
        let contents: Vec<String> = match format {
            Format::Markdown => vec![format!(
                "# bloom-compare report\n\n{}",
                markdown::render(report)
            )],
            Format::Csv => vec![to_csv(&report.rows)?],
            Format::Json => vec![to_json(report)?],
            Format::Svg => plots::all(report)?
                .into_iter()
                .map(|(_, svg)| svg)
                .collect(),
        };
        for (path, text) in paths(dir, &[*format]).into_iter().zip(contents) {
            write_file(&path, text.as_bytes())?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Writes `contents` to `path`, creating its folder.
///
/// # Errors
///
/// When the file cannot be written.
pub fn write_text(path: &Path, contents: &str) -> Result<(), OutputError> {
    write_file(path, contents.as_bytes())
}
