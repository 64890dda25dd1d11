//! Keys, one per line, read in large batches from files or standard input.
//!
//! A key is a line's bytes without its `\n` or `\r\n` terminator, whatever they are: no
//! UTF-8 check, no `String` per line. An empty line is the empty key; a last line without
//! a terminator is a key too, and a terminator at the end of the input starts no key.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread::{self, ScopedJoinHandle};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::failure::Failure;

/// The batch size of a sequential read, 4 MiB, chosen by measurement. On the 402 MB file of
/// docs/cli.md (blocked filter, 2 cores shared, median of 7 runs, in one sitting) 256 KiB
/// gave 0.164 s, 1 MiB 0.168 s and 4 MiB 0.183 s, a spread within that machine's noise of
/// about 10%; on the 1 GB file, on a quiet machine, 4 MiB beat 1 MiB in each of twelve
/// alternating pairs (0.477 to 0.601 s against 0.532 to 0.879 s after the first round,
/// about 8% at the medians: fewer hand-offs between the threads), and 16 MiB was no better.
pub(crate) const SEQUENTIAL_BATCH_BYTES: usize = 4 << 20;

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
        self.for_each_reader(|reader, path, progress| {
            read_batches(reader, path, batch_bytes, progress, &mut on_batch)
        })
    }

    /// Calls `on_batch` with the hashes, by `hash`, of the keys of every input in order, a
    /// batch of about [`SEQUENTIAL_BATCH_BYTES`] of lines at a time, with a progress bar as
    /// [`for_each_batch`](Inputs::for_each_batch) shows.
    ///
    /// Three threads share the work: one reads and splits lines, one hashes them, and the
    /// caller's consumes the hashes (inserts them), so hashing, the costliest step of an
    /// insert, runs beside the other two instead of after one of them.
    ///
    /// # Errors
    ///
    /// As [`for_each_batch`](Inputs::for_each_batch).
    pub(crate) fn for_each_hashed_batch<H: Send>(
        &self,
        hash: impl Fn(&[u8]) -> H + Sync,
        mut on_batch: impl FnMut(&[H]) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        self.for_each_reader(|reader, path, progress| {
            read_hashed_batches(reader, path, progress, &hash, &mut on_batch)
        })
    }

    /// Calls `read` with each input, opened, its path and the progress bar, then clears the
    /// bar.
    fn for_each_reader(
        &self,
        mut read: impl FnMut(Box<dyn Read + Send>, &Path, &ProgressBar) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let progress = self.progress_bar();
        for path in &self.paths {
            let reader: Box<dyn Read + Send> = if path.as_os_str() == "-" {
                Box::new(io::stdin())
            } else {
                Box::new(File::open(path).map_err(|e| Failure::file(path, e))?)
            };
            read(reader, path, &progress)?;
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

/// A batch of whole lines and where each key lies in it, as the reading thread hands it
/// over.
#[derive(Default)]
struct Batch {
    /// The bytes of whole lines.
    bytes: Vec<u8>,
    /// Each key's start and end in `bytes`, terminators excluded.
    spans: Vec<(usize, usize)>,
}

/// Reads `reader` to its end, handing `on_batch` the keys of each batch of whole lines.
///
/// A second thread reads and finds the line ends while this one hashes and inserts, so
/// the kernel's copy of the input and the newline search overlap the hashing (on the
/// 402 MB file of docs/cli.md, `perf record` of a single-threaded run put the copy and the
/// page cache's bookkeeping at a quarter of the time and the newline search at an eighth).
/// Batches go back to the reader for reuse, so at most three are in memory.
fn read_batches(
    reader: impl Read + Send,
    path: &Path,
    batch_bytes: usize,
    progress: &ProgressBar,
    on_batch: &mut impl FnMut(&[&[u8]]) -> Result<(), Failure>,
) -> Result<(), Failure> {
    // One batch waits in the channel while the reader fills the next: enough to overlap.
    let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(1);
    let (empty_tx, empty_rx) = mpsc::channel::<Batch>();
    thread::scope(|scope| {
        let producer = scope.spawn(|| produce(reader, batch_bytes, progress, full_tx, empty_rx));
        let result = consume(full_rx, &empty_tx, |batch| {
            // The list borrows the batch, so it lives for one batch only (one allocation
            // per batch of a megabyte or more, nothing per key).
            let keys: Vec<&[u8]> = batch
                .spans
                .iter()
                .map(|&(a, b)| &batch.bytes[a..b])
                .collect();
            on_batch(&keys)
        });
        finish(producer, path, result)
    })
}

/// Reads `reader` to its end as [`read_batches`] does, handing `on_batch` the hashes of
/// each batch's keys, computed by `hash` on a thread of its own.
///
/// The batches of lines go back to the reader as soon as they are hashed, and the vectors
/// of hashes back to the hashing thread once consumed, so each pair of threads shares two
/// or three of them, allocated once.
fn read_hashed_batches<H: Send>(
    reader: impl Read + Send,
    path: &Path,
    progress: &ProgressBar,
    hash: &(impl Fn(&[u8]) -> H + Sync),
    on_batch: &mut impl FnMut(&[H]) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(1);
    let (empty_tx, empty_rx) = mpsc::channel::<Batch>();
    let (hashed_tx, hashed_rx) = mpsc::sync_channel::<Vec<H>>(1);
    let (spent_tx, spent_rx) = mpsc::channel::<Vec<H>>();
    thread::scope(|scope| {
        let producer =
            scope.spawn(|| produce(reader, SEQUENTIAL_BATCH_BYTES, progress, full_tx, empty_rx));
        scope.spawn(move || {
            for batch in full_rx {
                let mut hashes = spent_rx.try_recv().unwrap_or_default();
                hashes.clear();
                hashes.extend(batch.spans.iter().map(|&(a, b)| hash(&batch.bytes[a..b])));
                // The reader may have finished; a batch it no longer wants is simply freed.
                let _ = empty_tx.send(batch);
                if hashed_tx.send(hashes).is_err() {
                    // The consumer failed: dropping `full_rx` stops the reader too.
                    return;
                }
            }
        });
        let result = consume(hashed_rx, &spent_tx, |hashes| on_batch(hashes));
        finish(producer, path, result)
    })
}

/// Hands each batch `received` to `on_batch`, then sends it back on `spent` for reuse, up
/// to the first failure. Returning drops `received`, which stops the threads that fill it.
fn consume<T>(
    received: Receiver<T>,
    spent: &Sender<T>,
    mut on_batch: impl FnMut(&T) -> Result<(), Failure>,
) -> Result<(), Failure> {
    for batch in received {
        let result = on_batch(&batch);
        // The other thread may have finished; a batch it no longer wants is simply freed.
        let _ = spent.send(batch);
        result?;
    }
    Ok(())
}

/// The consumer's `result`, or else the reading thread's, once that thread has ended.
fn finish(
    producer: ScopedJoinHandle<'_, io::Result<()>>,
    path: &Path,
    result: Result<(), Failure>,
) -> Result<(), Failure> {
    let read = producer
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    result.and(read.map_err(|e| Failure::file(path, e)))
}

/// The reading thread: fills buffers of `batch_bytes` (or to the end of the input), finds
/// the keys of their whole lines and sends them to `full`, carrying the partial last line
/// over to the next buffer. A line longer than the buffer doubles it. Stops early, without
/// error, when the receiver is gone (the consumer failed and reports why).
fn produce(
    mut reader: impl Read,
    batch_bytes: usize,
    progress: &ProgressBar,
    full: SyncSender<Batch>,
    empty: Receiver<Batch>,
) -> io::Result<()> {
    let mut batch = Batch {
        bytes: Vec::with_capacity(batch_bytes),
        spans: Vec::new(),
    };
    loop {
        let buffer = &mut batch.bytes;
        if buffer.len() == buffer.capacity() {
            let more = buffer.len().max(batch_bytes).max(1);
            buffer.reserve(more);
        }
        let wanted = buffer.capacity() - buffer.len();
        // `read_to_end` on a `Take` fills the spare capacity without zeroing it first, and
        // retries interrupted reads; fewer bytes than asked means the input ended.
        let got = reader.by_ref().take(wanted as u64).read_to_end(buffer)?;
        progress.inc(got as u64);
        let at_end = got < wanted;
        let complete = if at_end {
            buffer.len()
        } else {
            match memchr::memrchr(b'\n', buffer) {
                Some(last) => last + 1,
                // No line ends in the buffer: read on into a larger one.
                None => continue,
            }
        };
        let mut next = empty.try_recv().unwrap_or_default();
        next.bytes.clear();
        next.bytes.reserve(batch_bytes);
        next.bytes.extend_from_slice(&buffer[complete..]);
        buffer.truncate(complete);
        batch.spans.clear();
        split_lines(&batch.bytes, &mut batch.spans);
        if !batch.bytes.is_empty() && full.send(batch).is_err() {
            return Ok(());
        }
        if at_end {
            return Ok(());
        }
        batch = next;
    }
}

/// Appends the start and end of each key of `text` (whole lines, the last one with or
/// without its terminator) to `spans`.
fn split_lines(text: &[u8], spans: &mut Vec<(usize, usize)>) {
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text) {
        spans.push((start, without_cr(text, start, end)));
        start = end + 1;
    }
    if start < text.len() {
        spans.push((start, without_cr(text, start, text.len())));
    }
}

/// The end of the line `text[start..end]` without the `\r` of a `\r\n` terminator.
fn without_cr(text: &[u8], start: usize, end: usize) -> usize {
    if end > start && text[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(text: &[u8]) -> Vec<Vec<u8>> {
        let mut spans = Vec::new();
        split_lines(text, &mut spans);
        spans
            .into_iter()
            .map(|(a, b)| text[a..b].to_vec())
            .collect()
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
    fn hashed_batches_are_the_keys_hashes_in_order() {
        let text: Vec<u8> = (0..100_000)
            .flat_map(|i| format!("key-{i}\r\n").into_bytes())
            .collect();
        let mut seen = Vec::new();
        read_hashed_batches(
            &text[..],
            Path::new("-"),
            &ProgressBar::hidden(),
            &|key: &[u8]| key.to_vec(),
            &mut |keys: &[Vec<u8>]| {
                seen.extend_from_slice(keys);
                Ok(())
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(seen, keys_of(&text));
        // A failing consumer stops the reading and its failure is the result.
        let mut calls = 0;
        let result = read_hashed_batches(
            &text[..],
            Path::new("-"),
            &ProgressBar::hidden(),
            &|key: &[u8]| key.len(),
            &mut |_: &[usize]| {
                calls += 1;
                Err(Failure::plain("stop"))
            },
        );
        assert_eq!(result.map_err(|e| e.to_string()), Err("stop".to_owned()));
        assert_eq!(calls, 1);
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
