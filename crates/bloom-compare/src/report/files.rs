//! Writing a report to files (markdown, CSV, JSON, SVG) and reading the data back.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

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
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            OutputError::Csv(e) => write!(f, "CSV: {e}"),
            OutputError::Json(e) => write!(f, "JSON: {e}"),
            OutputError::Plot(e) => write!(f, "plot: {e}"),
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
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<Row>, _>>()
        .map_err(OutputError::Csv)
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
    serde_json::from_str(text).map_err(OutputError::Json)
}

/// Writes `report` in each of `formats` under `dir` (`report.md`, `report.csv`,
/// `report.json`, `plots/*.svg`); returns the paths written.
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
        match format {
            Format::Markdown => {
                let path = dir.join("report.md");
                let text = format!("# bloom-compare report\n\n{}", markdown::render(report));
                write_file(&path, text.as_bytes())?;
                written.push(path);
            }
            Format::Csv => {
                let path = dir.join("report.csv");
                write_file(&path, to_csv(&report.rows)?.as_bytes())?;
                written.push(path);
            }
            Format::Json => {
                let path = dir.join("report.json");
                write_file(&path, to_json(report)?.as_bytes())?;
                written.push(path);
            }
            Format::Svg => {
                for (name, svg) in plots::all(report)? {
                    let path = dir.join("plots").join(name);
                    write_file(&path, svg.as_bytes())?;
                    written.push(path);
                }
            }
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
