//! Reading a big `events.jsonl` without holding it: one thread reads
//! blocks of whole lines, and each block is parsed on every core while the
//! block before is handed, in file order, to the one consumer. The tables
//! (`metrics`) and the failed units' transcripts (`transcript`) both read
//! their events this way, so neither ever holds more than a few blocks.

use std::io::Read;
use std::path::Path;

use rayon::prelude::*;

use super::EventsError;

/// Event text read at a time (about 650 lines of a typical run): enough to
/// keep every core parsing while the block before is added up, small
/// enough that the blocks in flight and their parsed events stay a few
/// megabytes. Reading a 766k-event file peaked at 86 MB with 4 MB blocks,
/// at 35 MB with these, as fast.
pub const BLOCK_BYTES: usize = 256 << 10;

/// One line's parse: `Ok(None)` for a line the consumer does not want.
pub type LineResult<T> = Result<Option<T>, String>;

/// Streams `path`'s lines: each non-blank line is given to `parse` on any
/// core, and what it returns (`Some`) to `add`, in file order. A line that
/// is not UTF-8, or that `parse` rejects, stops the stream with an error
/// naming its file and line.
pub fn for_each_in_file<T: Send + Sync>(
    path: &Path,
    parse: impl Fn(&str) -> LineResult<T> + Sync,
    add: impl FnMut(&T) + Send,
) -> Result<(), EventsError> {
    let file = std::fs::File::open(path).map_err(|source| EventsError::Io { path: path.into(), source })?;
    for_each_line(path, file, BLOCK_BYTES, parse, add)
}

/// `for_each_in_file` over any reader, in blocks of about `block_bytes`;
/// `path` names it in errors. A thread reads the next block while this one
/// parses the last, and each block is parsed on every core while the one
/// before is added up.
pub fn for_each_line<T: Send + Sync>(
    path: &Path,
    file: impl Read + Send,
    block_bytes: usize,
    parse: impl Fn(&str) -> LineResult<T> + Sync,
    mut add: impl FnMut(&T) + Send,
) -> Result<(), EventsError> {
    let parse_error = |line: usize, message: String| EventsError::Parse { path: path.into(), line, message };
    // By reference: a parsed event is a few hundred bytes, not worth moving.
    let add_block = |add: &mut dyn FnMut(&T), parsed: &[LineResult<T>], first_line: usize| {
        for (i, parsed) in parsed.iter().enumerate() {
            match parsed {
                Ok(Some(parsed)) => add(parsed),
                Ok(None) => {}
                Err(message) => return Err(parse_error(first_line + i, message.clone())),
            }
        }
        Ok(())
    };
    // The block's text is let go once its lines are parsed.
    let parse_block = |block: Vec<u8>| -> Vec<LineResult<T>> {
        split_lines(&block)
            .par_iter()
            .map(|line| match std::str::from_utf8(line) {
                Ok(line) if line.trim().is_empty() => Ok(None),
                Ok(line) => parse(line),
                Err(_) => Err("not UTF-8 text".to_string()),
            })
            .collect()
    };
    let mut first_line = 1;
    std::thread::scope(|scope| {
        let (blocks, received) = std::sync::mpsc::sync_channel(1);
        scope.spawn(move || read_blocks(file, block_bytes, |block| blocks.send(block).is_ok()));
        // Owns `received` (a receiver is not shared between threads);
        // returning early drops it, which stops the reader.
        let mut next = move || match received.recv() {
            Ok(Ok(block)) => Ok(Some(parse_block(block))),
            Ok(Err(BlockError::Io(source))) => Err(EventsError::Io { path: path.into(), source }),
            Ok(Err(BlockError::LineTooLong { line })) => {
                let message = crate::core::limits::EVENT_LINE_BYTES.passed("the line");
                Err(EventsError::TooBig { path: path.into(), line: Some(line), message })
            }
            Err(_) => Ok(None),
        };
        let mut current = next()?;
        while let Some(parsed) = current {
            let (added, following) = rayon::join(|| add_block(&mut add, &parsed, first_line), &mut next);
            added?;
            first_line += parsed.len();
            current = following?;
        }
        Ok(())
    })
}

/// Why the reader stopped short of the end.
enum BlockError {
    Io(std::io::Error),
    /// Line `line` (1-based) is longer than `EVENT_LINE_BYTES`: a file with
    /// no newline would otherwise be held whole.
    LineTooLong {
        line: usize,
    },
}

/// Reads `file` in blocks of whole lines (the last may lack its `\n`) of
/// about `block_bytes`, handing each to `send` until it returns false.
fn read_blocks(mut file: impl Read, block_bytes: usize, send: impl Fn(Result<Vec<u8>, BlockError>) -> bool) {
    let max_line = usize::try_from(crate::core::limits::EVENT_LINE_BYTES.in_force()).unwrap_or(usize::MAX);
    let mut lines_sent = 0;
    let mut block: Vec<u8> = Vec::new();
    loop {
        // The block starts with the unfinished line of the last read; the
        // rest is read into room reserved, not zeroed, first.
        block.reserve(block_bytes);
        let read = match (&mut file).take(block_bytes as u64).read_to_end(&mut block) {
            Ok(read) => read,
            Err(e) => {
                send(Err(BlockError::Io(e)));
                return;
            }
        };
        if read == 0 {
            if !block.is_empty() {
                send(Ok(block));
            }
            return;
        }
        let Some(last_newline) = memchr::memrchr(b'\n', &block) else {
            if block.len() > max_line {
                send(Err(BlockError::LineTooLong { line: lines_sent + 1 }));
                return;
            }
            continue;
        };
        let rest = block.split_off(last_newline + 1);
        // Every line but the unfinished one is whole, so only it can be too long.
        if rest.len() > max_line {
            send(Err(BlockError::LineTooLong { line: lines_sent + memchr::memchr_iter(b'\n', &block).count() + 1 }));
            return;
        }
        lines_sent += memchr::memchr_iter(b'\n', &block).count();
        if !send(Ok(std::mem::replace(&mut block, rest))) {
            return;
        }
    }
}

/// The lines of a block, without their `\n`.
fn split_lines(block: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::with_capacity(block.len() / 256);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', block) {
        lines.push(&block[start..end]);
        start = end + 1;
    }
    if start < block.len() {
        lines.push(&block[start..]);
    }
    lines
}
