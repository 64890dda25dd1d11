//! `bloom`: create, fill, query, inspect, merge and size Bloom filter files from the shell.
//!
//! Every file is one filter in the workspace's checksummed binary format
//! (`docs/format.md`), of any variant: classic, blocked, split block (Parquet's), counting
//! or scalable. Keys are lines of bytes, read from files or standard input. See
//! `docs/cli.md` for examples and `bloom --help` for every option.
//!
//! ```text
//! bloom create --variant blocked --n 1000000 --p 0.01 -o seen.bloom
//! bloom add seen.bloom urls.txt
//! bloom check seen.bloom candidates.txt     # prints the lines that may be present
//! bloom info seen.bloom --json
//! bloom merge a.bloom b.bloom -o both.bloom
//! bloom size --n 1000000 --p 0.01
//! bloom keygen -o secret.key                # keyed filters: docs/security.md
//! bloom create --variant blocked --n 1000000 --p 0.01 --key-file secret.key -o keyed.bloom
//! bloom add --key-file secret.key keyed.bloom urls.txt
//! ```
//!
//! Exit codes: 0 on success, 2 on any error (with a one-line `bloom: ...` message on
//! standard error); `check` exits with 1 when it printed no line, like `grep`.

mod atomic;
mod failure;
mod filter;
mod key;
mod lines;
mod report;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bloom_core::hash::Hashing;
use clap::{Args, Parser, Subcommand};

use crate::failure::Failure;
use crate::filter::{AnyFilter, Kind};
use crate::key::Key;
use crate::lines::{Inputs, PARALLEL_BATCH_BYTES, SEQUENTIAL_BATCH_BYTES};

/// Create, fill, query, inspect, merge and size Bloom filter files.
///
/// A filter answers "definitely not seen" or "maybe seen" for a key, in a fixed, small
/// memory. Keys are lines: the bytes of each line without its `\n` or `\r\n`, any bytes at
/// all (no UTF-8 needed). Files are in the bloom-family binary format, checksummed; every
/// write is atomic, so an interrupted command never leaves a half-written filter.
///
/// Exit codes: 0 success, 1 `check` printed nothing, 2 error.
#[derive(Debug, Parser)]
#[command(name = "bloom", version, max_term_width = 100)]
struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Write an empty filter sized for N keys at false-positive rate P.
    ///
    /// Example: bloom create --variant blocked --n 1000000 --p 0.01 -o seen.bloom
    Create(CreateArgs),
    /// Add keys, one per line, from files or standard input, to a filter file.
    ///
    /// The file is rewritten atomically once every input is read. A progress bar shows on
    /// standard error when it is a terminal.
    ///
    /// Example: bloom add seen.bloom urls-1.txt urls-2.txt
    Add(AddArgs),
    /// Print the lines that may be in the filter (or, with --absent, those that are not).
    ///
    /// Exit code 0 when a line was printed, 1 when none was, 2 on error, like grep.
    ///
    /// Example: bloom check seen.bloom candidates.txt > maybe-seen.txt
    Check(CheckArgs),
    /// Show a filter's variant, parameters, memory, fill, estimated keys and FPR.
    ///
    /// Example: bloom info seen.bloom --json
    Info(InfoArgs),
    /// Write the union of filters of the same variant and parameters to OUT.
    ///
    /// Example: bloom merge monday.bloom tuesday.bloom -o week.bloom
    Merge(MergeArgs),
    /// For every variant: memory, bits per key, hashes and expected FPR for N keys at P.
    ///
    /// The figures are those of the filter each variant's `new(N, P)` builds.
    ///
    /// Example: bloom size --n 1000000 --p 0.001
    Size(SizeArgs),
    /// Write a new random secret key, for keyed filters, to a file only its owner can read.
    ///
    /// A keyed filter hashes with SipHash-1-3 under the key: nobody without it can tell
    /// which bits a key sets, even holding the filter file (docs/security.md). The file
    /// holds 32 hex digits and a newline; an existing file is never replaced, since the
    /// filters keyed with its key could no longer be read.
    ///
    /// Example: bloom keygen -o secret.key
    Keygen(KeygenArgs),
}

/// The number of keys and the false-positive rate a filter is sized for.
#[derive(Debug, Args)]
struct Sizing {
    /// Number of distinct keys the filter is sized for (a scalable filter's first layer).
    #[arg(long = "n", value_name = "N")]
    n: u64,
    /// Target false-positive rate, in (0, 1): 0.01 is one false "maybe" in a hundred.
    #[arg(long = "p", value_name = "P")]
    p: f64,
}

/// `bloom create`.
#[derive(Debug, Args)]
struct CreateArgs {
    /// The filter variant.
    #[arg(long, value_enum)]
    variant: Kind,
    #[command(flatten)]
    sizing: Sizing,
    /// The filter file to write (replaced if it exists).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Seed the filter's hash (a 64-bit integer) instead of using the workspace's default,
    /// so that outsiders cannot craft keys aimed at its bits; files merge only with files of
    /// the same seed. Not for the split block filter, which keeps Parquet's hash.
    #[arg(long, conflicts_with = "key_file")]
    seed: Option<u64>,
    /// Key the filter's hash with the secret key in PATH (see `bloom keygen`): SipHash-1-3
    /// under the key, so that nobody without it can aim keys at its bits, even holding the
    /// file, which stores only the key's fingerprint. Every later command on the file needs
    /// --key-file too. Not for the split block filter, which keeps Parquet's hash.
    #[arg(long, value_name = "PATH")]
    key_file: Option<PathBuf>,
}

/// The key file of a keyed filter, for the commands that read filter files.
#[derive(Debug, Args)]
struct KeyFileArg {
    /// The key file of a keyed filter (32 hex digits, or 16 raw bytes), as given to
    /// `bloom create --key-file`; needed to read a keyed filter, refused for another.
    #[arg(long, value_name = "PATH")]
    key_file: Option<PathBuf>,
}

impl KeyFileArg {
    /// The key, when a key file was given.
    ///
    /// # Errors
    ///
    /// A [`Failure`] naming the key file when it cannot be read or holds no key.
    fn read(&self) -> Result<Option<Key>, Failure> {
        Key::read_optional(self.key_file.as_deref())
    }
}

/// `bloom add`.
#[derive(Debug, Args)]
struct AddArgs {
    /// The filter file to add to.
    file: PathBuf,
    /// Files of keys, one per line; standard input when none (or `-`) is given.
    inputs: Vec<PathBuf>,
    /// Build with every core (rayon), reading keys in large batches into memory; for the
    /// classic, blocked and counting variants. Gives the same filter.
    #[arg(long)]
    parallel: bool,
    #[command(flatten)]
    key: KeyFileArg,
}

/// `bloom check`.
#[derive(Debug, Args)]
struct CheckArgs {
    /// The filter file to query.
    file: PathBuf,
    /// Files of keys, one per line; standard input when none (or `-`) is given.
    inputs: Vec<PathBuf>,
    /// Print the keys that are definitely not in the filter instead.
    #[arg(long)]
    absent: bool,
    #[command(flatten)]
    key: KeyFileArg,
}

/// `bloom info`.
#[derive(Debug, Args)]
struct InfoArgs {
    /// The filter file to describe.
    file: PathBuf,
    /// Print one JSON object instead of `name: value` lines.
    #[arg(long)]
    json: bool,
    /// The key file of a keyed filter. Optional here: without it a keyed filter's header
    /// and bits still give every field, and the key's fingerprint stands for the key; with
    /// it, the key is checked against that fingerprint.
    #[arg(long, value_name = "PATH")]
    key_file: Option<PathBuf>,
}

/// `bloom merge`.
#[derive(Debug, Args)]
struct MergeArgs {
    /// The filter files to merge: two or more, of the same variant and parameters.
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// The filter file to write (may be one of the inputs; replaced atomically).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    // Every input must be keyed with this key, or none be keyed.
    #[command(flatten)]
    key: KeyFileArg,
}

/// `bloom size`.
#[derive(Debug, Args)]
struct SizeArgs {
    #[command(flatten)]
    sizing: Sizing,
    /// Print one JSON object per variant, one per line, instead of a table.
    #[arg(long)]
    json: bool,
}

/// `bloom keygen`.
#[derive(Debug, Args)]
struct KeygenArgs {
    /// The key file to write; must not exist yet.
    #[arg(short, long, value_name = "PATH")]
    output: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::NothingPrinted) => ExitCode::from(1),
        Err(failure) => {
            eprintln!("bloom: {failure}");
            ExitCode::from(2)
        }
    }
}

/// How a command that did not fail ended.
enum Outcome {
    /// Exit code 0.
    Success,
    /// `check` printed no line: exit code 1.
    NothingPrinted,
}

/// Runs one subcommand.
fn run(command: Command) -> Result<Outcome, Failure> {
    match command {
        Command::Create(args) => create(&args),
        Command::Add(args) => add(&args),
        Command::Check(args) => check(&args),
        Command::Info(args) => info(&args),
        Command::Merge(args) => merge(&args),
        Command::Size(args) => size(&args),
        Command::Keygen(args) => {
            key::generate(&args.output)?;
            Ok(Outcome::Success)
        }
    }
}

/// `bloom create`: an empty filter written to the output file.
fn create(args: &CreateArgs) -> Result<Outcome, Failure> {
    let Sizing { n, p } = args.sizing;
    let key = Key::read_optional(args.key_file.as_deref())?;
    let hashing = match (&key, args.seed) {
        (Some(key), _) => Some(Hashing::Keyed(key.secret())),
        (None, Some(seed)) => Some(Hashing::Seeded(seed)),
        (None, None) => None,
    };
    let filter = match hashing {
        None => AnyFilter::new(args.variant, n, p),
        Some(hashing) => AnyFilter::new_hashed(args.variant, n, p, hashing),
    }
    .map_err(Failure::plain)?;
    filter.save(&args.output)?;
    Ok(Outcome::Success)
}

/// `bloom add`: every input's keys added, the file rewritten once at the end.
fn add(args: &AddArgs) -> Result<Outcome, Failure> {
    let key = args.key.read()?;
    let mut filter = AnyFilter::load(&args.file, key.as_ref())?;
    let inputs = Inputs::new(&args.inputs);
    let fail = |e| Failure::file(&args.file, e);
    if args.parallel {
        // Refused before any input is read.
        filter.check_parallel().map_err(fail)?;
        inputs.for_each_batch(PARALLEL_BATCH_BYTES, |keys| {
            filter.par_insert_all(keys).map_err(fail)
        })?;
    } else {
        filter.insert_inputs(&inputs, fail)?;
    }
    filter.save(&args.file)?;
    Ok(Outcome::Success)
}

/// `bloom check`: the keys that may be present (or, with `--absent`, the others) printed.
fn check(args: &CheckArgs) -> Result<Outcome, Failure> {
    let key = args.key.read()?;
    let filter = AnyFilter::load(&args.file, key.as_ref())?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut printed = false;
    let mut broken_pipe = false;
    let mut answers = Vec::new();
    let result = Inputs::new(&args.inputs).for_each_batch(SEQUENTIAL_BATCH_BYTES, |keys| {
        answers.clear();
        filter.contains_all(keys, &mut answers);
        for (key, &maybe) in keys.iter().zip(&answers) {
            if maybe != args.absent {
                out.write_all(key)
                    .and_then(|()| out.write_all(b"\n"))
                    .map_err(|e| {
                        broken_pipe = e.kind() == io::ErrorKind::BrokenPipe;
                        stdout_failure(e)
                    })?;
                printed = true;
            }
        }
        Ok(())
    });
    let flushed = out.flush().map_err(|e| {
        broken_pipe |= e.kind() == io::ErrorKind::BrokenPipe;
        stdout_failure(e)
    });
    match result.and(flushed) {
        Ok(()) if printed => Ok(Outcome::Success),
        Ok(()) => Ok(Outcome::NothingPrinted),
        // A reader that stops early (`bloom check ... | head`) is not an error.
        Err(_) if broken_pipe => Ok(Outcome::Success),
        Err(failure) => Err(failure),
    }
}

/// `bloom info`: the filter's fields as text or JSON.
fn info(args: &InfoArgs) -> Result<Outcome, Failure> {
    let key = Key::read_optional(args.key_file.as_deref())?;
    let (filter, hash) = AnyFilter::load_description(&args.file, key.as_ref())?;
    let fields = report::info(&filter, hash);
    let mut out = io::stdout().lock();
    if args.json {
        report::write_json(&mut out, fields)
    } else {
        report::write_text(&mut out, &fields)
    }
    .map_err(stdout_failure)?;
    Ok(Outcome::Success)
}

/// `bloom merge`: the union of the inputs written to the output file.
fn merge(args: &MergeArgs) -> Result<Outcome, Failure> {
    let (first_path, rest) = args
        .inputs
        .split_first()
        .ok_or_else(|| Failure::plain("merge needs at least two filter files"))?;
    let key = args.key.read()?;
    let mut merged = AnyFilter::load(first_path, key.as_ref())?;
    for path in rest {
        let other = AnyFilter::load(path, key.as_ref())?;
        if other.kind() != merged.kind() {
            return Err(Failure::file(
                path,
                format!(
                    "cannot merge a {} filter with {}, a {} filter",
                    other.kind().name(),
                    first_path.display(),
                    merged.kind().name()
                ),
            ));
        }
        merged.union(&other).map_err(|e| {
            Failure::file(
                path,
                format!("cannot merge with {}: {e}", first_path.display()),
            )
        })?;
    }
    merged.save(&args.output)?;
    Ok(Outcome::Success)
}

/// `bloom size`: what every variant's `new(n, p)` builds.
fn size(args: &SizeArgs) -> Result<Outcome, Failure> {
    let Sizing { n, p } = args.sizing;
    // A bad n or p is the same error for every variant: report it once, as an error. A
    // size one variant cannot reach is that variant's row's error.
    bloom_core::internal::check_count("n", n).map_err(Failure::plain)?;
    bloom_core::internal::check_rate("p", p).map_err(Failure::plain)?;
    let rows: Vec<_> = Kind::ALL
        .iter()
        .map(|&kind| report::size(kind, n, p))
        .collect();
    // Rows that are errors are printed as such; when every row is one, no variant can hold
    // n keys at p on this machine, and the command fails after printing them.
    let none_fits = rows
        .iter()
        .all(|row| row.iter().any(|(name, _)| *name == "error"));
    let mut out = io::stdout().lock();
    if args.json {
        for row in rows {
            report::write_json(&mut out, row).map_err(stdout_failure)?;
        }
    } else {
        report::write_size_table(&mut out, &rows).map_err(stdout_failure)?;
    }
    if none_fits {
        return Err(Failure::plain(format!(
            "no variant can hold {n} keys at p = {p}"
        )));
    }
    Ok(Outcome::Success)
}

/// A failure to write to standard output.
fn stdout_failure(e: io::Error) -> Failure {
    Failure::file(Path::new("standard output"), e)
}
