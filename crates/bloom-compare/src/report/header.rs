//! The report header: the machine, the compiler, the date and the exact command.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::cpu::CpuInfo;

/// Where and how a report was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// `bloom-compare` and its version.
    pub tool: String,
    /// When the run started (UTC).
    pub date: String,
    /// CPU model, as the operating system names it (`/proc/cpuinfo`'s `model name`), or
    /// `unknown (<arch>)`; [`cpu_details`](Header::cpu_details) has the rest.
    pub cpu: String,
    /// The CPU in full: vendor, family and model numbers, SIMD features, cache sizes.
    /// Absent from reports written before it was recorded ([`Header::cpu_info`] then
    /// knows the model name only).
    #[serde(default)]
    pub cpu_details: Option<CpuInfo>,
    /// Logical cores available to the process.
    pub cores: usize,
    /// Version of the compiler that built the binary.
    pub rustc: String,
    /// The command line, as run (program name without its path).
    pub command_line: String,
    /// Seed of the keys.
    pub seed: u64,
    /// Rounds per setting.
    pub rounds: usize,
    /// Threads of the parallel build.
    pub threads: usize,
    /// Whether the peer crates were compiled in.
    pub peers_feature: bool,
    /// The system's one-minute load average when the run started (Linux), a hint of how
    /// much other work shared the cores.
    pub load_average: Option<f64>,
    /// Wall time of the sweep, in seconds.
    pub wall_seconds: f64,
}

/// The load average from which a run is said to have shared its cores with other work: on
/// average, half a core busy over the minute before it started.
pub const BUSY_LOAD: f64 = 0.5;

impl Header {
    /// Whether other work shared the cores when the run started (a load average of at least
    /// [`BUSY_LOAD`]); `None` where the load average is unknown.
    pub fn shared_cores(&self) -> Option<bool> {
        self.load_average.map(|load| load >= BUSY_LOAD)
    }

    /// A header for a run of `args` (the process's arguments, program name first) now.
    pub fn collect(args: &[String], seed: u64, rounds: usize, threads: usize) -> Header {
        let cpu = CpuInfo::read();
        Header {
            tool: format!("bloom-compare {}", env!("CARGO_PKG_VERSION")),
            date: utc_now(),
            cpu: cpu
                .model_name
                .clone()
                .unwrap_or_else(|| format!("unknown ({})", std::env::consts::ARCH)),
            cpu_details: Some(cpu),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            rustc: env!("BLOOM_COMPARE_RUSTC_VERSION").to_string(),
            command_line: command_line(args),
            seed,
            rounds,
            threads,
            peers_feature: cfg!(feature = "peers"),
            load_average: load_average(),
            wall_seconds: 0.0,
        }
    }

    /// The CPU the report was measured on: [`cpu_details`](Header::cpu_details), or for a
    /// report written before they were recorded, a CPU known by its model name only.
    pub fn cpu_info(&self) -> CpuInfo {
        self.cpu_details
            .clone()
            .unwrap_or_else(|| CpuInfo::named(&self.cpu))
    }
}

/// The one-minute load average from `/proc/loadavg` (Linux).
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The command line with the program's directory removed (it names the machine, not the
/// run) and arguments quoted where a shell would need it.
pub fn command_line(args: &[String]) -> String {
    let mut parts = Vec::with_capacity(args.len());
    if let Some(program) = args.first() {
        let name = std::path::Path::new(program)
            .file_name()
            .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
        parts.push(name);
    }
    for arg in args.iter().skip(1) {
        parts.push(shell_quote(arg));
    }
    parts.join(" ")
}

fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,:%+@".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The current time in UTC as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format_utc(secs)
}

/// Formats seconds since the Unix epoch as `YYYY-MM-DD HH:MM UTC`, with the days-to-civil
/// conversion of H. Hinnant ("chrono-Compatible Low-Level Date Algorithms", 2013).
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3_600,
        rem % 3_600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_convert() {
        assert_eq!(format_utc(0), "1970-01-01 00:00 UTC");
        // 2000-02-29 12:34 UTC, a leap day.
        assert_eq!(format_utc(951_827_640), "2000-02-29 12:34 UTC");
        assert_eq!(format_utc(1_735_689_600), "2025-01-01 00:00 UTC");
    }

    #[test]
    fn command_lines_are_quoted() {
        let args: Vec<String> = [
            "/x/target/release/bloom-compare",
            "--n",
            "1000,2000",
            "a b",
            "it's",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            command_line(&args),
            r"bloom-compare --n 1000,2000 'a b' 'it'\''s'"
        );
    }

    /// A run is said to share its cores from half a core's load on, and not said anything of
    /// where the load is unknown.
    #[test]
    fn shared_cores_follow_the_load() {
        let mut header = Header::collect(&["bloom-compare".to_string()], 1, 1, 1);
        for (load, shared) in [(Some(0.1), Some(false)), (Some(0.5), Some(true))] {
            header.load_average = load;
            assert_eq!(header.shared_cores(), shared, "{load:?}");
        }
        header.load_average = None;
        assert_eq!(header.shared_cores(), None);
    }
}
