//! `--diff`: a unified diff of an object before and after, coloured on a
//! terminal.
//!
//! Myers' algorithm costs the product of the length and the number of
//! changes: tens of seconds for 50,000 changed lines. So its work is
//! bounded, as GNU diff bounds its own: Myers runs only on regions small
//! enough; a larger region is first split at the lines that occur once on
//! each side (patience diff), and a gap between those lines that is still
//! too large is shown as removed and added whole. The output is always a
//! correct diff (it turns `before` into `after`), minimal where Myers ran.

use similar::algorithms::{Capture, Compact, DiffHook, Replace, myers};
use similar::{ChangeTag, DiffOp, group_diff_ops, udiff::UnifiedHunkHeader};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// The unified diff of `before` and `after` (three lines of context),
/// headed `a/NAME` and `b/NAME`; empty when they are equal.
pub fn unified(before: &str, after: &str, name: &str, colour: bool) -> String {
    if before == after {
        return String::new();
    }
    let text = unified_text(before, after, name);
    if !colour {
        return text;
    }
    let mut out = String::with_capacity(text.len() * 11 / 10);
    for line in text.split_inclusive('\n') {
        let style = if line.starts_with("+++") || line.starts_with("---") {
            BOLD
        } else if line.starts_with('+') {
            GREEN
        } else if line.starts_with('-') {
            RED
        } else if line.starts_with("@@") {
            CYAN
        } else {
            out.push_str(line);
            continue;
        };
        let body = line.strip_suffix('\n').unwrap_or(line);
        out.push_str(style);
        out.push_str(body);
        out.push_str(RESET);
        if body.len() < line.len() {
            out.push('\n');
        }
    }
    out
}

/// The most lines (both sides together) of a region Myers' algorithm runs
/// on: its work on one region is at most the square of this.
const MYERS_LINES: usize = 1_000;

/// The unified diff of two texts, line by line, without colours.
fn unified_text(before: &str, after: &str, name: &str) -> String {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let mut out = String::new();
    let edit = line_ops(&old, &new);
    debug_assert!(edit.myers_work <= MYERS_LINES * (old.len() + new.len()));
    let groups = group_diff_ops(edit.ops, 3);
    if groups.is_empty() {
        return out;
    }
    let _ = write!(out, "--- a/{name}\n+++ b/{name}\n");
    for group in groups {
        let _ = writeln!(out, "{}", UnifiedHunkHeader::new(&group));
        for op in &group {
            for change in op.iter_changes(&old[..], &new[..]) {
                let tag = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                out.push(tag);
                out.push_str(change.value());
                if !change.value().ends_with('\n') {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

/// The edit from `old` to `new`, and the work Myers' algorithm was given.
struct LineOps {
    ops: Vec<DiffOp>,
    /// The sum of the squared sizes of the regions given to Myers: a bound
    /// on its steps.
    myers_work: usize,
}

/// The most steps of an edit that are slid into their most readable place
/// (similar's `Compact`, which `TextDiff` runs): that pass may cost the
/// square of their number.
const COMPACT_OPS: usize = 1_000;

/// The edit from `old` to `new` (see the module's comment).
fn line_ops(old: &[&str], new: &[&str]) -> LineOps {
    let mut edit = Edit { hook: Capture::new(), myers_work: 0 };
    edit.region(old, new, 0..old.len(), 0..new.len(), true);
    let raw = edit.hook.into_ops();
    // Runs of equal lines joined, deletions with insertions.
    let joined = Replace::new(Capture::new());
    let ops = if raw.len() <= COMPACT_OPS {
        let mut hook = Compact::new(joined, old, new);
        replay(&raw, &mut hook);
        hook.into_inner().into_inner().into_ops()
    } else {
        let mut hook = joined;
        replay(&raw, &mut hook);
        hook.into_inner().into_ops()
    };
    LineOps { ops, myers_work: edit.myers_work }
}

fn replay(ops: &[DiffOp], hook: &mut impl DiffHook) {
    for op in ops {
        let _ = op.apply_to_hook(hook);
    }
    let _ = hook.finish();
}

/// An edit being written, in order, from the start of both texts.
struct Edit {
    /// The steps, as they come.
    hook: Capture,
    myers_work: usize,
}

impl Edit {
    /// The edit of one region; `split` when it may be split at unique lines.
    fn region(&mut self, old: &[&str], new: &[&str], mut o: Range<usize>, mut n: Range<usize>, split: bool) {
        // Common lines at both ends.
        let head = old[o.clone()].iter().zip(&new[n.clone()]).take_while(|(a, b)| a == b).count();
        self.equal(o.start, n.start, head);
        (o.start, n.start) = (o.start + head, n.start + head);
        let tail = old[o.clone()].iter().rev().zip(new[n.clone()].iter().rev()).take_while(|(a, b)| a == b).count();
        (o.end, n.end) = (o.end - tail, n.end - tail);
        let (o_end, n_end) = (o.end, n.end);
        if o.len() + n.len() <= MYERS_LINES {
            self.myers_work += (o.len() + n.len()).pow(2);
            // (It finishes the capture, which does nothing: more may follow.)
            let _ = myers::diff(&mut self.hook, old, o, new, n);
        } else {
            let anchors = if split { unique_common_lines(old, new, o.clone(), n.clone()) } else { Vec::new() };
            if anchors.is_empty() {
                // Too large for Myers, nothing to split at: replaced whole.
                if !o.is_empty() {
                    let _ = self.hook.delete(o.start, o.len(), n.start);
                }
                if !n.is_empty() {
                    let _ = self.hook.insert(o.end, n.start, n.len());
                }
            } else {
                let (mut at_o, mut at_n) = (o.start, n.start);
                for (i, j) in anchors {
                    self.region(old, new, at_o..i, at_n..j, false);
                    self.equal(i, j, 1);
                    (at_o, at_n) = (i + 1, j + 1);
                }
                self.region(old, new, at_o..o.end, at_n..n.end, false);
            }
        }
        self.equal(o_end, n_end, tail);
    }

    fn equal(&mut self, o: usize, n: usize, len: usize) {
        if len > 0 {
            let _ = self.hook.equal(o, n, len);
        }
    }
}

/// The pairs of positions of lines that occur once in each region, in the
/// longest run that is in order on both sides (patience diff): found in
/// O(n log n).
fn unique_common_lines(old: &[&str], new: &[&str], o: Range<usize>, n: Range<usize>) -> Vec<(usize, usize)> {
    // Per line: how often it occurs on each side, and its last position.
    #[derive(Default)]
    struct Seen {
        old: (usize, usize),
        new: (usize, usize),
    }
    let mut seen: HashMap<&str, Seen> = HashMap::new();
    for i in o {
        let e = &mut seen.entry(old[i]).or_default().old;
        *e = (e.0 + 1, i);
    }
    for j in n {
        let e = &mut seen.entry(new[j]).or_default().new;
        *e = (e.0 + 1, j);
    }
    let once = |s: Seen| (s.old.0 == 1 && s.new.0 == 1).then_some((s.old.1, s.new.1));
    let mut pairs: Vec<(usize, usize)> = seen.into_values().filter_map(once).collect();
    pairs.sort_unstable_by_key(|&(_, j)| j);
    longest_increasing(&pairs)
}

/// The longest subsequence of `pairs` (sorted by their second position)
/// whose first positions increase, by patience sorting.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // `tops[k]`: the pair ending the best run of length k + 1 found so far.
    let mut tops: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = Vec::with_capacity(pairs.len());
    for (p, &(i, _)) in pairs.iter().enumerate() {
        let k = tops.partition_point(|&t| pairs[t].0 < i);
        back.push(k.checked_sub(1).map(|k| tops[k]));
        if k == tops.len() {
            tops.push(p);
        } else {
            tops[k] = p;
        }
    }
    let mut run = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(p) = at {
        run.push(pairs[p]);
        at = back[p];
    }
    run.reverse();
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unified_diff_with_headers_and_hunks() {
        let text = unified("a: 1\nb: 2\n", "a: 1\nb: 3\n", "configmap/x", false);
        assert_eq!(text, "--- a/configmap/x\n+++ b/configmap/x\n@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n+b: 3\n");
        assert_eq!(unified("a\n", "a\n", "x", false), "");
    }

    /// `before` turned into what `diff` says `after` is, checking every
    /// line it says `before` holds.
    fn patched(before: &str, diff: &str) -> String {
        let old: Vec<&str> = before.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut at = 0;
        let mut lines = diff.split_inclusive('\n').skip(2).peekable();
        while let Some(line) = lines.next() {
            if let Some(header) = line.strip_prefix("@@ -") {
                let range = header.split(' ').next().unwrap();
                let (start, len) = range.split_once(',').unwrap_or((range, "1"));
                let start: usize = start.parse().unwrap();
                let first = if len == "0" { start } else { start - 1 };
                old[at..first].iter().for_each(|l| out.push_str(l));
                at = first;
                continue;
            }
            let text = &line[1..];
            let text = match lines.peek() {
                Some(hint) if hint.starts_with('\\') => {
                    lines.next();
                    text.strip_suffix('\n').unwrap()
                }
                _ => text,
            };
            match &line[..1] {
                " " | "-" => {
                    assert_eq!(old[at], text, "line {at}");
                    at += 1;
                    if line.starts_with(' ') {
                        out.push_str(text);
                    }
                }
                "+" => out.push_str(text),
                other => panic!("{other:?}"),
            }
        }
        old[at..].iter().for_each(|l| out.push_str(l));
        out
    }

    /// A small random text of lines drawn from a few.
    fn text(seed: &mut u64, lines: usize, words: u64) -> String {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        (0..lines).map(|_| format!("w{}\n", next() % words)).collect()
    }

    #[test]
    fn small_diffs_are_the_minimal_ones() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for case in 0..300 {
            let (n, m) = (case % 23, (case * 7) % 19);
            let (mut a, b) = (text(&mut seed, n, 5), text(&mut seed, m, 5));
            if case % 5 == 0 {
                a.pop();
            }
            let ours = unified_text(&a, &b, "x");
            let theirs =
                similar::TextDiff::from_lines(&a, &b).unified_diff().context_radius(3).header("a/x", "b/x").to_string();
            assert_eq!(ours, theirs, "case {case}: {a:?} → {b:?}");
            if a != b {
                assert_eq!(patched(&a, &ours), b, "case {case}");
            }
        }
    }

    /// `n` lines `key-i: value`, the values changed by `change`.
    fn listing(n: usize, change: impl Fn(usize) -> String) -> String {
        (0..n).map(|i| format!("key-{i}: {}\n", change(i))).collect()
    }

    #[test]
    fn large_diffs_are_bounded_and_correct() {
        let n = 50_000;
        let listed = listing(n, |i| format!("{i}"));
        let repeated = |k: usize| (0..n).map(|i| format!("- {}\n", i % k)).collect::<String>();
        let cases = [
            // Every line changed: no line in common.
            ("all changed", listed.clone(), listing(n, |i| format!("{i}x"))),
            // Every other line changed: unique lines to split at.
            ("every other", listed, listing(n, |i| if i % 2 == 0 { format!("{i}") } else { format!("{i}x") })),
            // Lines that repeat on both sides: nothing unique to split at.
            ("repeated", repeated(3), repeated(4)),
        ];
        for (what, before, after) in cases {
            let old: Vec<&str> = before.split_inclusive('\n').collect();
            let new: Vec<&str> = after.split_inclusive('\n').collect();
            let work = line_ops(&old, &new).myers_work;
            assert!(work <= MYERS_LINES * (old.len() + new.len()), "{what}: {work}");
            assert_eq!(patched(&before, &unified(&before, &after, "x", false)), after, "{what}");
        }
    }

    #[test]
    fn colours_on_a_terminal() {
        let text = unified("b: 2\n", "b: 3\n", "x", true);
        assert!(text.contains("\x1b[31m-b: 2\x1b[0m\n") && text.contains("\x1b[32m+b: 3\x1b[0m\n"), "{text:?}");
    }
}
