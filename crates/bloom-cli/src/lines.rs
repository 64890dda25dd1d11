//! Keys, one per line, read in large batches from files or standard input.
//!
//! A key is a line's bytes without its `\n` or `\r\n` terminator, whatever they are: no
//! UTF-8 check, no `String` per line. An empty line is the empty key; a last line without
//! a terminator is a key too, and a terminator at the end of the input starts no key.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::failure::Failure;

/// The batch size of a sequential read, 1 MiB: large enough that one `read` call serves
/// tens of thousands of short keys, small enough to stay in the L2 cache.
pub(crate) const SEQUENTIAL_BATCH_BYTES: usize = 1 << 20;

/// The batch size of a parallel build (`add --parallel`), 4 MiB: each batch is one
/// `par_insert_all` call. Measured on the 402 MB file of docs/cli.md (2 cores, blocked
/// filter, median of 7 runs): 0.17 s with 4 MiB, 0.18 s with 16, 0.25 s with 64 and
/// 0.37 s with 256 MiB, since smaller batches keep the reading thread and the build
/// overlapped.
pub(crate) const PARALLEL_BATCH_BYTES: usize = 4 << 20;

/// Where keys come from: the files named, or standard input when none (or `-`) is named.
pub(crate) struct Inputs {
    paths: Vec<PathBuf>,
}

impl Inputs {
    /// The inputs a command was given; standard input when `paths` is empty.
    pub(crate) fn new(paths: &[PathBuf]) -> Inputs {
        let paths = if paths.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            paths.to_vec()
        };
        Inputs { paths }
    }

    /// Calls `on_batch` with the keys of every input in order, a batch of about
    /// `batch_bytes` bytes of lines at a time, with a progress bar on standard error when
    /// it is a terminal.
    ///
    /// # Errors
    ///
    /// A [`Failure`] naming the input that cannot be opened or read, or the first
    /// failure `on_batch` returns (which stops the reading).
    pub(crate) fn for_each_batch(
        &self,
        batch_bytes: usize,
        mut on_batch: impl FnMut(&[&[u8]]) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let progress = self.progress_bar();
        for path in &self.paths {
            let reader: Box<dyn Read + Send> = if path.as_os_str() == "-" {
                Box::new(io::stdin())
            } else {
                Box::new(File::open(path).map_err(|e| Failure::file(path, e))?)
            };
            read_batches(reader, path, batch_bytes, &progress, &mut on_batch)?;
        }
        progress.finish_and_clear();
        Ok(())
    }

    /// A bar over the inputs' total size, or a byte counter when one is standard input;
    /// hidden when standard error is not a terminal, so logs and pipes get no escape codes.
    fn progress_bar(&self) -> ProgressBar {
        if !io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let sizes: Option<u64> = self
            .paths
            .iter()
            .map(|p| {
                if p.as_os_str() == "-" {
                    None
                } else {
                    std::fs::metadata(p).ok().map(|m| m.len())
                }
            })
            .sum();
        match sizes {
            Some(total) => ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
                .with_style(
                    ProgressStyle::with_template(
                        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                ),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{spinner} {bytes} {bytes_per_sec}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        }
    }
}

/// Reads `reader` to its end, handing `on_batch` the keys of each batch of whole lines.
///
/// A second thread reads while this one splits and inserts, so the kernel's copy of the
/// input overlaps the hashing (on the 402 MB file of docs/cli.md, the copy and the page
/// cache's bookkeeping are a quarter of a single-threaded run's time). Buffers go back to
/// the reader for reuse, so at most three batches are in memory.
fn read_batches(
    reader: impl Read + Send,
    path: &Path,
    batch_bytes: usize,
    progress: &ProgressBar,
    on_batch: &mut impl FnMut(&[&[u8]]) -> Result<(), Failure>,
) -> Result<(), Failure> {
    // One batch waits in the channel while the reader fills the next: enough to overlap.
    let (full_tx, full_rx) = mpsc::sync_channel::<Vec<u8>>(1);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
    thread::scope(|scope| {
        let producer = scope.spawn(|| produce(reader, batch_bytes, progress, full_tx, empty_rx));
        let mut result = Ok(());
        // How many keys the last batch held: the next one's list starts at that capacity.
        let mut last_count = 0;
        for batch in full_rx {
            // The list borrows the batch, so it lives for one batch only (one allocation
            // per batch of a megabyte or more, nothing per key).
            let mut keys = Vec::with_capacity(last_count);
            split_lines(&batch, &mut keys);
            result = on_batch(&keys);
            last_count = keys.len();
            drop(keys);
            // The reader may have finished; a buffer it no longer wants is simply freed.
            let _ = empty_tx.send(batch);
            if result.is_err() {
                // Leaving the loop drops the receiver, which stops the reader.
                break;
            }
        }
        let read = producer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        result.and(read.map_err(|e| Failure::file(path, e)))
    })
}

/// The reading thread: fills buffers of `batch_bytes` (or to the end of the input), sends
/// the whole lines of each to `full`, and carries the partial last line over to the next
/// buffer. A line longer than the buffer doubles it. Stops early, without error, when the
/// receiver is gone (the consumer failed and reports why).
fn produce(
    mut reader: impl Read,
    batch_bytes: usize,
    progress: &ProgressBar,
    full: SyncSender<Vec<u8>>,
    empty: Receiver<Vec<u8>>,
) -> io::Result<()> {
    let mut buffer = Vec::with_capacity(batch_bytes);
    loop {
        if buffer.len() == buffer.capacity() {
            let more = buffer.len().max(batch_bytes).max(1);
            buffer.reserve(more);
        }
        let wanted = buffer.capacity() - buffer.len();
        // `read_to_end` on a `Take` fills the spare capacity without zeroing it first, and
        // retries interrupted reads; fewer bytes than asked means the input ended.
        let got = reader
            .by_ref()
            .take(wanted as u64)
            .read_to_end(&mut buffer)?;
        progress.inc(got as u64);
        let at_end = got < wanted;
        let complete = if at_end {
            buffer.len()
        } else {
            match memchr::memrchr(b'\n', &buffer) {
                Some(last) => last + 1,
                // No line ends in the buffer: read on into a larger one.
                None => continue,
            }
        };
        let mut next = empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(batch_bytes));
        next.clear();
        next.extend_from_slice(&buffer[complete..]);
        buffer.truncate(complete);
        if !buffer.is_empty() && full.send(buffer).is_err() {
            return Ok(());
        }
        if at_end {
            return Ok(());
        }
        buffer = next;
    }
}

/// Appends the keys of `text` (whole lines, the last one with or without its terminator)
/// to `keys`.
fn split_lines<'a>(text: &'a [u8], keys: &mut Vec<&'a [u8]>) {
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text) {
        keys.push(strip_cr(&text[start..end]));
        start = end + 1;
    }
    if start < text.len() {
        keys.push(strip_cr(&text[start..]));
    }
}

/// A line without the `\r` of a `\r\n` terminator.
fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(text: &[u8]) -> Vec<Vec<u8>> {
        let mut keys = Vec::new();
        split_lines(text, &mut keys);
        keys.into_iter().map(<[u8]>::to_vec).collect()
    }

    #[test]
    fn lines_split_on_lf_and_crlf() {
        assert_eq!(
            keys_of(b"a\nb\r\nc"),
            [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]
        );
        assert_eq!(keys_of(b"a\n\nb\n"), [b"a".to_vec(), vec![], b"b".to_vec()]);
        assert!(keys_of(b"").is_empty());
    }

    #[test]
    fn batches_cover_every_line_whatever_the_buffer() {
        let text: Vec<u8> = (0..1000)
            .flat_map(|i| format!("key-{i}\n").into_bytes())
            .collect();
        for size in [1, 3, 7, 64, 1 << 20] {
            let mut seen = Vec::new();
            read_batches(
                &text[..],
                Path::new("-"),
                size,
                &ProgressBar::hidden(),
                &mut |keys: &[&[u8]]| {
                    seen.extend(keys.iter().map(|k| k.to_vec()));
                    Ok(())
                },
            )
            .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(seen, keys_of(&text), "buffer of {size}");
        }
    }
}
