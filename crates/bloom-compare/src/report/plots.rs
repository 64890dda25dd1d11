//! The report's plots, as SVG strings (plotters' SVG backend: no system font or image
//! library; text is written as SVG `<text>` and laid out with plotters' own size estimate).
//!
//! * `fpr_vs_bits.svg`: measured false-positive rate against bits per key, every candidate
//!   and setting, with the information-theoretic bound, the optimal classic filter and
//!   the 512-bit blocked filter as theory curves.
//! * `query_vs_n.svg`: absent-key query time against n, single and batch, with the memory
//!   probe as the floor line.
//! * `memory_vs_n.svg`: bytes held against n.

use std::f64::consts::LN_2;
use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;

use bloom_core::math;

use crate::candidate::Origin;
use crate::report::files::OutputError;
use crate::report::markdown::{fprs, groups, main_load};
use crate::report::{Report, Row};

/// Pixel size of every plot.
const SIZE: (u32, u32) = (960, 640);

fn plot_error<E: std::fmt::Debug>(e: E) -> OutputError {
    OutputError::Plot(format!("{e:?}"))
}

/// The colour of the candidate at `index` in the report's order.
fn colour(index: usize) -> RGBColor {
    const COLOURS: [RGBColor; 12] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(255, 127, 14),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
        RGBColor(0, 0, 128),
        RGBColor(128, 64, 0),
    ];
    COLOURS[index % COLOURS.len()]
}

/// Every plot of `report`, as (file name, SVG).
///
/// # Errors
///
/// When plotters fails to draw (it does not for a report made by a sweep).
pub fn all(report: &Report) -> Result<Vec<(&'static str, String)>, OutputError> {
    let svgs = [
        fpr_vs_bits(report)?,
        query_vs_n(report)?,
        memory_vs_n(report)?,
    ];
    Ok(NAMES.into_iter().zip(svgs).collect())
}

/// The file names of the plots [`all`] draws, in its order.
pub const NAMES: [&str; 3] = ["fpr_vs_bits.svg", "query_vs_n.svg", "memory_vs_n.svg"];

/// The rows a per-n plot shows: the first key kind, the main load, the first target rate
/// (and the fixed-rate candidates, measured only there).
fn per_n_rows(report: &Report) -> Vec<&Row> {
    let kind = groups(report).first().map(|g| g.0);
    let load = main_load(report);
    let fpr = fprs(report).first().copied();
    report
        .rows
        .iter()
        .filter(|r| Some(r.key_kind) == kind && r.load_percent == load && Some(r.target_fpr) == fpr)
        .collect()
}

/// One candidate's points in a plot.
struct Series<'a> {
    /// Position in the report's candidates (picks the colour).
    index: usize,
    name: &'a str,
    origin: Origin,
    /// Sorted by x.
    points: Vec<(f64, f64)>,
}

/// A theory curve: label, colour, points.
type Curve = (&'static str, RGBColor, Vec<(f64, f64)>);

/// One series per candidate: its points sorted by x, from `rows` through `point`.
fn series<'a>(
    report: &'a Report,
    rows: &[&Row],
    point: impl Fn(&Row) -> Option<(f64, f64)>,
) -> Vec<Series<'a>> {
    report
        .candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let mut points: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.candidate == c.id)
                .filter_map(|r| point(r))
                .filter(|&(x, y)| x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite())
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            (!points.is_empty()).then_some(Series {
                index: i,
                name: c.name.as_str(),
                origin: c.origin,
                points,
            })
        })
        .collect()
}

/// A log range around `values` with some room (a decade if they are all equal).
fn log_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values.filter(|v| *v > 0.0 && v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return 1.0..10.0;
    }
    if hi / lo < 1.5 {
        return lo / 3.0..hi * 3.0;
    }
    lo / 1.5..hi * 1.5
}

/// Draws the points and joining lines of each candidate's series, with legend entries.
fn draw_series<'a, DB: DrawingBackend + 'a, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    all: &[Series<'_>],
    lines: bool,
) -> Result<(), OutputError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for Series {
        index,
        name,
        origin,
        points,
    } in all
    {
        let c = colour(*index);
        if lines && points.len() > 1 {
            chart
                .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))
                .map_err(plot_error)?;
        }
        let label = format!(
            "{name}{}",
            if *origin == Origin::Peer {
                " (peer)"
            } else {
                ""
            }
        );
        match origin {
            Origin::Ours => chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 4, c.filled())))
                .map_err(plot_error)?
                .label(label)
                .legend(move |(x, y)| Circle::new((x + 8, y), 4, c.filled())),
            Origin::Peer => chart
                .draw_series(
                    points
                        .iter()
                        .map(|&p| TriangleMarker::new(p, 5, c.stroke_width(2))),
                )
                .map_err(plot_error)?
                .label(label)
                .legend(move |(x, y)| TriangleMarker::new((x + 8, y), 5, c.stroke_width(2))),
        };
    }
    Ok(())
}

fn finish<'a, DB: DrawingBackend + 'a, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
) -> Result<(), OutputError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(plot_error)
}

/// The frame of a chart: its caption's size in points, its margin and the sizes of its label
/// areas in pixels.
#[derive(Debug, Clone, Copy)]
struct Frame {
    caption: u32,
    margin: u32,
    x_labels: u32,
    y_labels: u32,
}

/// The frame of a chart that fills a plot.
const WHOLE: Frame = Frame {
    caption: 22,
    margin: 12,
    x_labels: 48,
    y_labels: 72,
};

/// The frame of one of two charts side by side.
const PANEL: Frame = Frame {
    caption: 18,
    margin: 10,
    x_labels: 44,
    y_labels: 60,
};

/// Both axes logarithmic.
type LogLog = Cartesian2d<LogCoord<f64>, LogCoord<f64>>;

/// A chart of a figure against n in `area`, both axes logarithmic over `x` and `y`, with its
/// mesh drawn: n labelled in powers of ten, the figure described by `y_desc` and labelled by
/// `y_label`.
fn against_n<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    title: &str,
    frame: Frame,
    (x, y): (Range<f64>, Range<f64>),
    y_desc: &str,
    y_label: &dyn Fn(&f64) -> String,
) -> Result<ChartContext<'a, DB, LogLog>, OutputError> {
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", frame.caption))
        .margin(frame.margin)
        .x_label_area_size(frame.x_labels)
        .y_label_area_size(frame.y_labels)
        .build_cartesian_2d(x.log_scale(), y.log_scale())
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(242, 242, 242))
        .x_desc("n (keys the filter is sized for)")
        .y_desc(y_desc)
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .y_label_formatter(y_label)
        .draw()
        .map_err(plot_error)?;
    Ok(chart)
}

/// Measured rate against bits per key, with theory curves.
pub fn fpr_vs_bits(report: &Report) -> Result<String, OutputError> {
    let rows: Vec<&Row> = report.rows.iter().collect();
    let all = series(report, &rows, |r| Some((r.bits_per_key?, r.measured_fpr)));
    let max_bits = all
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(4.0f64, f64::max)
        .ceil()
        + 1.0;
    let min_fpr = all
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.5f64, f64::min)
        / 3.0;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Measured false-positive rate against bits per key",
                ("sans-serif", WHOLE.caption),
            )
            .margin(WHOLE.margin)
            .x_label_area_size(WHOLE.x_labels)
            .y_label_area_size(WHOLE.y_labels)
            .build_cartesian_2d(0.0..max_bits, (min_fpr..1.0).log_scale())
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .light_line_style(RGBColor(242, 242, 242))
            .x_desc("bits per key (memory held × 8 / keys inserted)")
            .y_desc("measured false-positive rate")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(plot_error)?;
        let steps = 200;
        let curve = |f: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
            (1..=steps)
                .map(|i| max_bits * i as f64 / steps as f64)
                .map(|b| (b, f(b)))
                .filter(|&(_, p)| p >= min_fpr && p <= 1.0)
                .collect()
        };
        let theory: [Curve; 3] = [
            (
                "bound: p = 2^-b",
                RGBColor(0, 0, 0),
                curve(&|b| (-b).exp2()),
            ),
            (
                "optimal classic: p = 2^-(b ln 2)",
                RGBColor(90, 90, 90),
                curve(&|b| (-b * LN_2).exp2()),
            ),
            (
                "512-bit blocked, k = round(b ln 2)",
                RGBColor(160, 160, 160),
                curve(&|b| {
                    let k = (b * LN_2).round().max(1.0) as u32;
                    let n = 1_000_000u64;
                    math::blocked_fpr((b * n as f64) as u64, 512, k, n)
                }),
            ),
        ];
        for (label, c, points) in theory {
            chart
                .draw_series(LineSeries::new(points, c.stroke_width(1)))
                .map_err(plot_error)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c));
        }
        draw_series(&mut chart, &all, false)?;
        finish(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The median of `values` (0 when empty).
fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Per n, the median over candidates of a probe figure: the floor line.
fn probe_line(rows: &[&Row], figure: impl Fn(&Row) -> Option<f64>) -> Vec<(f64, f64)> {
    let mut ns: Vec<u64> = rows.iter().map(|r| r.n).collect();
    ns.sort_unstable();
    ns.dedup();
    ns.into_iter()
        .filter_map(|n| {
            let values: Vec<f64> = rows
                .iter()
                .filter(|r| r.n == n)
                .filter_map(|r| figure(r))
                .collect();
            (!values.is_empty()).then(|| (n as f64, median(values)))
        })
        .collect()
}

fn query_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    rows: &[&Row],
    batch: bool,
) -> Result<(), OutputError> {
    let all = if batch {
        series(report, rows, |r| Some((r.n as f64, r.absent_batch_ns?)))
    } else {
        series(report, rows, |r| Some((r.n as f64, r.absent_ns)))
    };
    let floor = if batch {
        probe_line(rows, |r| r.probe_batch_ns)
    } else {
        probe_line(rows, |r| r.probe_single_ns)
    };
    let x = log_range(rows.iter().map(|r| r.n as f64));
    let y = log_range(
        all.iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(floor.iter().map(|p| p.1)),
    );
    let title = if batch {
        "Absent keys, batch query"
    } else {
        "Absent keys, one query at a time"
    };
    let mut chart = against_n(area, title, PANEL, (x, y), "ns per query", &|v| {
        format!("{v:.1}")
    })?;
    let probe_label = if batch {
        "memory probe: read per line, 32 prefetched"
    } else {
        "memory probe: one dependent read"
    };
    chart
        .draw_series(LineSeries::new(floor.clone(), BLACK.stroke_width(3)))
        .map_err(plot_error)?
        .label(probe_label)
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.stroke_width(3)));
    draw_series(&mut chart, &all, true)?;
    finish(&mut chart, SeriesLabelPosition::UpperLeft)
}

/// Absent-key query time against n, single and batch, with the memory probe as the floor.
pub fn query_vs_n(report: &Report) -> Result<String, OutputError> {
    let rows = per_n_rows(report);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (SIZE.0 * 2, SIZE.1)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let (left, right) = root.split_horizontally(SIZE.0);
        query_panel(&left, report, &rows, false)?;
        query_panel(&right, report, &rows, true)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// Bytes held against n.
pub fn memory_vs_n(report: &Report) -> Result<String, OutputError> {
    let rows = per_n_rows(report);
    let all = series(report, &rows, |r| {
        Some((r.n as f64, r.memory_bytes? as f64))
    });
    let x = log_range(rows.iter().map(|r| r.n as f64));
    let y = log_range(all.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let title = "Memory held against n";
        let mut chart = against_n(&root, title, WHOLE, (x, y), "bytes held", &|v| {
            format!("{v:.0e}")
        })?;
        draw_series(&mut chart, &all, true)?;
        finish(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
