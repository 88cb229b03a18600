//! Ordering of merged lists: `$setElementOrder` (its validation, the
//! server-order view, the interleave) and the reference's
//! `normalizeSliceOrder` / `mergeSortedSlice`. Items are placed by their
//! position in an order list; positions come precomputed (hashed lookups),
//! so each step is linear apart from the sort. The position-based steps are
//! generic over the element, so that the JSON engine and the typed layer
//! share them.

use super::key::{Field, Key, KeyValue, Lookup, Uncomparable, ValueIndex, uncomparable};
use crate::directive::{PATCH, PatchOp};
use crate::doc::{Document, Object as _, go_eq};
use crate::error::{ErrorKind, Result, bad_arg, no_merge_key};
use crate::value::{GoKind, fmt_v_list};

#[cfg(test)]
/// Sorts `items` as Go's `sort.SliceStable` does with the reference's
/// comparator: `less(a, b)` is `pos(a) < pos(b)` when both are found in the
/// order list, and `true` otherwise.
///
/// When every item is found the comparator is consistent and any stable sort
/// gives the same result. When some are missing the result depends on Go's
/// algorithm, which is then reproduced step by step.
pub fn sort_by_position<T>(items: Vec<T>, pos: Vec<Option<usize>>) -> Vec<T> {
    let pos: Vec<Lookup> = pos.into_iter().map(|p| p.map_or(Lookup::MISSING, |p| Lookup::at(p as u32))).collect();
    // Plain lookups never fail.
    let perm = sorted_permutation(&pos).unwrap_or_else(|Uncomparable| (0..pos.len()).collect());
    in_order(items, &perm)
}

/// [`sort_by_position`] where a lookup may panic in the reference: that
/// happens only if Go's sort evaluates it, which it does lazily (the
/// position of `b` only when `a` was found, and none for fewer than two
/// items), so Go's algorithm is followed step by step then.
pub fn sort_by_lookup<T>(items: Vec<T>, pos: Vec<Lookup>) -> Result<Vec<T>, Uncomparable> {
    debug_assert_eq!(items.len(), pos.len());
    Ok(match lookup_order(&pos)? {
        Some(order) => in_order(items, &order),
        None => items,
    })
}

/// The order [`sort_by_lookup`] puts items in, as positions; `None` when
/// the items stay where they are.
pub(crate) fn lookup_order(pos: &[Lookup]) -> Result<Option<Vec<usize>>, Uncomparable> {
    // Every item found, already in order (a list merged by the order it
    // had): the comparator is consistent, so a stable sort moves nothing.
    let mut last = 0;
    if pos.iter().all(|p| p.found().is_some_and(|i| std::mem::replace(&mut last, i) <= i)) {
        return Ok(None);
    }
    sorted_permutation(pos).map(Some)
}

fn sorted_permutation(pos: &[Lookup]) -> Result<Vec<usize>, Uncomparable> {
    let mut found = Vec::with_capacity(pos.len());
    for p in pos {
        match p.found() {
            // Below `Lookup::UNCOMPARABLE`'s number: a `u32`.
            Some(at) => found.push(at as u32),
            None => return go_stable_permutation(pos),
        }
    }
    Ok(stable_order_by_key(&found))
}

/// The positions `0..n` ordered by `cmp` on positions, equal ones in
/// their own order: a stable sort by anything else than a position (Go's
/// `sort.Stable`, which the ordering steps follow anyway).
pub(crate) fn stable_order_by(n: usize, cmp: &dyn Fn(usize, usize) -> std::cmp::Ordering) -> Vec<usize> {
    go_stable_order(n, &mut |a, b| cmp(a, b).is_lt())
}

/// [`sorted_permutation`] where some item is missing: Go's algorithm with
/// the reference's comparator,
/// `if ii := index(i); ii >= 0 { if ij := index(j); ij >= 0 { return ii < ij } }; return true`.
fn go_stable_permutation(pos: &[Lookup]) -> Result<Vec<usize>, Uncomparable> {
    // A lookup that panics in Go was evaluated.
    let mut failed = false;
    let perm = go_stable_order(pos.len(), &mut |i, j| {
        let a = match pos[i].get() {
            Ok(Some(a)) => a,
            Ok(None) => return true,
            Err(Uncomparable) => {
                failed = true;
                return false;
            }
        };
        match pos[j].get() {
            Ok(Some(b)) => a < b,
            Ok(None) => true,
            Err(Uncomparable) => {
                failed = true;
                false
            }
        }
    });
    if failed { Err(Uncomparable) } else { Ok(perm) }
}

/// The positions `0..n` in the order Go's `sort.Stable` leaves their items
/// in, `less` comparing items by position.
fn go_stable_order(n: usize, less: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    GoStable { perm: &mut perm, less }.stable();
    perm
}

/// The positions of `keys` ordered by key, equal keys in their own order:
/// a stable sort by key. Each key and its position are one number (the key
/// above the position), so that these sorts are one sort of numbers, the
/// one the hashes of [`number_keys`](super::key::number_keys) are sorted
/// with. `keys` are positions in a list, which the ordering steps hold as
/// `u32`s, as [`Lookup`] does.
pub(crate) fn stable_order_by_key(keys: &[u32]) -> Vec<usize> {
    debug_assert!(u32::try_from(keys.len()).is_ok(), "positions of a list that u32s hold");
    let mut packed: Vec<u64> = Vec::with_capacity(keys.len());
    for (i, &key) in keys.iter().enumerate() {
        packed.push(u64::from(key) << 32 | i as u64);
    }
    packed.sort_unstable();
    let mut order = Vec::with_capacity(packed.len());
    for p in packed {
        order.push(p as u32 as usize);
    }
    order
}

#[cfg(test)]
/// Interleaves server-only items (`left`) with patch items (`right`), both
/// already sorted: a server-only item goes first only when both are found in
/// the server order and it comes earlier there (`mergeSortedSlice`).
pub fn merge_sorted<T>(left: Vec<T>, left_pos: &[Lookup], right: Vec<T>, right_pos: &[Lookup]) -> Vec<T> {
    merge_sorted_lookup(left, left_pos, right, right_pos).expect("plain lookups never fail")
}

/// [`merge_sorted`] where a lookup may panic in the reference: Go looks both
/// heads up at every step where both lists still have items.
pub fn merge_sorted_lookup<T>(
    left: Vec<T>,
    left_pos: &[Lookup],
    right: Vec<T>,
    right_pos: &[Lookup],
) -> Result<Vec<T>, Uncomparable> {
    let sides = interleave(left_pos, right_pos)?;
    Ok(take_sides(left, right, &sides))
}

/// Which list each item of [`merge_sorted_lookup`] comes from, in order
/// (`true`: the left): the heads Go compares depend only on the positions.
fn interleave(left_pos: &[Lookup], right_pos: &[Lookup]) -> Result<Vec<bool>, Uncomparable> {
    let (mut li, mut ri) = (0, 0);
    let mut sides = Vec::with_capacity(left_pos.len() + right_pos.len());
    while li < left_pos.len() || ri < right_pos.len() {
        let from_left = if li == left_pos.len() {
            false
        } else if ri == right_pos.len() {
            true
        } else {
            let (l, r) = (left_pos[li].get()?, right_pos[ri].get()?);
            matches!((l, r), (Some(l), Some(r)) if l < r)
        };
        sides.push(from_left);
        if from_left {
            li += 1;
        } else {
            ri += 1;
        }
    }
    Ok(sides)
}

/// The items of `left` and `right`, each next item from the side `sides`
/// names.
fn take_sides<T>(left: Vec<T>, right: Vec<T>, sides: &[bool]) -> Vec<T> {
    debug_assert_eq!(left.len() + right.len(), sides.len());
    let mut out = Vec::with_capacity(sides.len());
    let (mut left, mut right) = (left.into_iter(), right.into_iter());
    for &from_left in sides {
        out.extend(if from_left { left.next() } else { right.next() });
    }
    out
}

/// Go's `sort.Sort` (and `sort.Slice`) with a `less` that may be
/// non-strict: the reference sorts keyed lists by the `%v` text of their
/// keys with `<=`. Go's sort is not stable: the order it leaves equal
/// items in (duplicate merge keys) is that of its algorithm, pattern-
/// defeating quicksort since Go 1.19, followed here step by step
/// (`GoSort` below). Up to 12 items it is an insertion sort, which reverses
/// runs of equal keys under `<=`.
pub fn go_sort_by<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let order = go_sort_order(items.len(), &|i, j| less(&items[i], &items[j]));
    permute(items, &order);
}

/// The positions `0..n` in the order [`go_sort_by`] leaves their items in,
/// `less` comparing items by position. Go's sort decides each step by
/// `less` alone, so sorting the positions moves the items as sorting them
/// would; the sort is compiled once, whatever the items.
pub(crate) fn go_sort_order(n: usize, less: &dyn Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let limit = usize::BITS - n.leading_zeros();
    GoSort { order: &mut order, less }.pdqsort(0, n, limit);
    order
}

/// Go's `pdqsort` over the positions of items and a `less` on positions.
struct GoSort<'s> {
    order: &'s mut [usize],
    less: &'s dyn Fn(usize, usize) -> bool,
}

/// What `choosePivot` saw of the order around its samples.
#[derive(Clone, Copy, PartialEq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

impl GoSort<'_> {
    fn less(&self, i: usize, j: usize) -> bool {
        (self.less)(self.order[i], self.order[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.order.swap(i, j);
    }

    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: u32) {
        const MAX_INSERTION: usize = 12;
        let (mut was_balanced, mut was_partitioned) = (true, true);
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse(a, b);
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced && was_partitioned && hint == Hint::Increasing && self.partial_insertion_sort(a, b) {
                return;
            }
            // Many items equal to the one before the range: they go first.
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already) = self.partition(a, b, pivot);
            was_partitioned = already;
            let (left, right) = (mid - a, b - mid);
            let balance = length / 8;
            if left < right {
                was_balanced = left >= balance;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= balance;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let (first, hi) = (a, b - a);
        for i in (0..=(hi - 1) / 2).rev() {
            self.sift_down(i, hi, first);
        }
        for i in (0..hi).rev() {
            self.swap(first, first + i);
            self.sift_down(0, i, first);
        }
    }

    /// The pivot's final place, and whether the range was partitioned
    /// already.
    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        let (_, j, swapped) = self.sweep(a + 1, b as isize - 1, |s, i| s.less(i, a), |s, j| !s.less(j, a));
        // `j` stops at `a` at the lowest (`i` starts above it).
        self.swap(j as usize, a);
        (j as usize, !swapped)
    }

    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        self.sweep(a + 1, b as isize - 1, |s, i| !s.less(a, i), |s, j| s.less(a, j)).0
    }

    /// The loop of Go's two partitions: `i` moves up past the items that
    /// `left` keeps on the left, `j` down past those `right` keeps on the
    /// right, and each pair out of place is swapped, until they cross.
    /// Where they stopped, and whether a pair was swapped. (`j` is signed:
    /// it may step just below `i`'s start.)
    fn sweep(
        &mut self,
        mut i: usize,
        mut j: isize,
        left: impl Fn(&Self, usize) -> bool,
        right: impl Fn(&Self, usize) -> bool,
    ) -> (usize, isize, bool) {
        let mut swapped = false;
        loop {
            while i as isize <= j && left(self, i) {
                i += 1;
            }
            while i as isize <= j && right(self, j as usize) {
                j -= 1;
            }
            if i as isize > j {
                return (i, j, swapped);
            }
            self.swap(i, j as usize);
            swapped = true;
            i += 1;
            j -= 1;
        }
    }

    /// Sorts a range with at most a few items out of place; whether it did.
    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            if b - i >= 2 {
                for j in i + 1..b {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                }
            }
        }
        false
    }

    /// Swaps three items around the middle with others picked by Go's
    /// xorshift (shifts 13, 17, 5, as Go 1.22 on, which builds every kubectl
    /// of 1.27 to 1.33, has them), seeded with the length.
    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length >= 8 {
            let mut random = length as u64;
            let modulus = 1u64 << (usize::BITS - length.leading_zeros());
            let first = a + (length / 4) * 2 - 1;
            for idx in first..first + 3 {
                random ^= random << 13;
                random ^= random >> 17;
                random ^= random << 5;
                let mut other = (random & (modulus - 1)) as usize;
                if other >= length {
                    other -= length;
                }
                self.swap(idx, a + other);
            }
        }
    }

    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let (mut i, mut j, mut k) = (a + l / 4, a + l / 4 * 2, a + l / 4 * 3);
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        let hint = match swaps {
            0 => Hint::Increasing,
            MAX_SWAPS => Hint::Decreasing,
            _ => Hint::Unknown,
        };
        (j, hint)
    }

    fn order2(&self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            return (b, a);
        }
        (a, b)
    }

    fn median(&self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, c) = self.order2(b, c, swaps);
        let (_, b) = self.order2(a, b, swaps);
        let _ = c;
        b
    }

    fn reverse(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

/// One step of a walk over two sorted lists.
pub(crate) enum Step {
    /// Items that compare equal, one from each side.
    Both(usize, usize),
    /// An item only the left side has.
    Left(usize),
    /// An item only the right side has.
    Right(usize),
}

/// Walks two lists sorted by `cmp` together, as the reference's diffs of
/// sorted lists do.
pub(crate) fn walk_sorted<A, B>(
    left: &[A],
    right: &[B],
    cmp: impl Fn(&A, &B) -> std::cmp::Ordering,
    mut visit: impl FnMut(Step),
) {
    use std::cmp::Ordering;
    let (mut i, mut j) = (0, 0);
    while i < left.len() || j < right.len() {
        let step = match (left.get(i), right.get(j)) {
            (Some(a), Some(b)) => cmp(a, b),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match step {
            Ordering::Equal => {
                visit(Step::Both(i, j));
                i += 1;
                j += 1;
            }
            Ordering::Less => {
                visit(Step::Left(i));
                i += 1;
            }
            Ordering::Greater => {
                visit(Step::Right(j));
                j += 1;
            }
        }
    }
}

/// `items` put in the order `order` gives (a permutation of their
/// positions: item `order[p]` goes to `p`), in place, following each cycle
/// of the permutation once: no second list of the items.
pub(crate) fn in_order<T>(mut items: Vec<T>, order: &[usize]) -> Vec<T> {
    permute(&mut items, order);
    items
}

/// The items at the positions `at`, in that order.
pub(crate) fn gather<T: Copy>(items: &[T], at: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(at.len());
    for &i in at {
        out.push(items[i]);
    }
    out
}

/// [`in_order`] on a slice.
pub(crate) fn permute<T>(items: &mut [T], order: &[usize]) {
    debug_assert_eq!(items.len(), order.len());
    let mut placed = vec![false; items.len()];
    for start in 0..items.len() {
        let mut p = start;
        while !placed[p] {
            placed[p] = true;
            let q = order[p];
            if q == start {
                break;
            }
            items.swap(p, q);
            p = q;
        }
    }
}

/// Go's `sort.Stable` (insertion sort on blocks of 20, then `symMerge`),
/// acting on a permutation of positions, with a `less` on positions that
/// may be inconsistent (the reference's comparators).
struct GoStable<'a> {
    perm: &'a mut [usize],
    less: &'a mut dyn FnMut(usize, usize) -> bool,
}

impl GoStable<'_> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        (self.less)(self.perm[i], self.perm[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.perm.swap(i, j);
    }

    fn stable(&mut self) {
        let n = self.perm.len();
        let mut block = 20;
        let (mut a, mut b) = (0, block);
        while b <= n {
            self.insertion_sort(a, b);
            a = b;
            b += block;
        }
        self.insertion_sort(a, n);
        while block < n {
            let (mut a, mut b) = (0, 2 * block);
            while b <= n {
                self.sym_merge(a, a + block, b);
                a = b;
                b += 2 * block;
            }
            if a + block < n {
                self.sym_merge(a, a + block, n);
            }
            block *= 2;
        }
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    fn sym_merge(&mut self, a: usize, m: usize, b: usize) {
        if m - a == 1 {
            let (mut i, mut j) = (m, b);
            while i < j {
                let h = (i + j) / 2;
                if self.less(h, a) {
                    i = h + 1;
                } else {
                    j = h;
                }
            }
            for k in a..i.saturating_sub(1) {
                self.swap(k, k + 1);
            }
            return;
        }
        if b - m == 1 {
            let (mut i, mut j) = (a, m);
            while i < j {
                let h = (i + j) / 2;
                if !self.less(m, h) {
                    i = h + 1;
                } else {
                    j = h;
                }
            }
            let mut k = m;
            while k > i {
                self.swap(k, k - 1);
                k -= 1;
            }
            return;
        }
        let mid = (a + b) / 2;
        let n = mid + m;
        let (mut start, mut r) = if m > mid { (n - b, mid) } else { (a, m) };
        let p = n - 1;
        while start < r {
            let c = (start + r) / 2;
            if !self.less(p - c, c) {
                start = c + 1;
            } else {
                r = c;
            }
        }
        let end = n - start;
        if start < m && m < end {
            self.rotate(start, m, end);
        }
        if a < start && start < mid {
            self.sym_merge(a, start, mid);
        }
        if mid < end && end < b {
            self.sym_merge(mid, end, b);
        }
    }

    fn rotate(&mut self, a: usize, m: usize, b: usize) {
        let (mut i, mut j) = (m - a, b - m);
        while i != j {
            if i > j {
                self.swap_range(m - i, m, j);
                i -= j;
            } else {
                self.swap_range(m - i, m + j - i, i);
                j -= i;
            }
        }
        self.swap_range(m - i, m, i);
    }

    fn swap_range(&mut self, a: usize, b: usize, n: usize) {
        for i in 0..n {
            self.swap(a + i, b + i);
        }
    }
}

/// `validatePatchWithSetOrderList`: the patch list, minus deletions and
/// directive elements, must be a subsequence of the order list.
/// `mk` is the merge key's first field (`""` for scalars); `fields`, a
/// composite key's fields, by which items are then compared.
pub(crate) fn validate_patch_with_order<P: Document>(
    patch: &[P],
    order: &[P],
    mk: &str,
    fields: Option<super::key::KeyFields<'_>>,
) -> Result<()> {
    if patch.is_empty() || order.is_empty() {
        return Ok(());
    }
    let mut non_delete: Vec<&P> = Vec::with_capacity(patch.len());
    for p in patch {
        if !mk.is_empty() {
            let m = p.as_object().ok_or_else(|| bad_arg(GoKind::Object, &p.to_json()))?;
            if m.get(PATCH).and_then(P::as_str) == Some(PatchOp::Delete.as_str()) {
                continue;
            }
        }
        non_delete.push(p);
    }
    let (mut pi, mut oi) = (0, 0);
    while pi < non_delete.len() && oi < order.len() {
        let p = non_delete[pi];
        if p.as_object().is_some_and(|m| m.get(PATCH).is_some()) {
            pi += 1;
            continue;
        }
        let same = match fields {
            Some(fields) if fields.is_composite() => fields.same_key(p, &order[oi])?,
            _ => merge_key_value_equal(p, &order[oi], mk)?,
        };
        if same {
            pi += 1;
        }
        oi += 1;
    }
    if pi < non_delete.len() {
        let (patch, order) = (P::json_list(patch), P::json_list(order));
        return Err(ErrorKind::OrderMismatch { patch: fmt_v_list(&patch), order: fmt_v_list(&order) }.into());
    }
    Ok(())
}

/// `mergeKeyValueEqual`.
pub(crate) fn merge_key_value_equal<P: Document>(left: &P, right: &P, mk: &str) -> Result<bool> {
    if mk.is_empty() {
        return go_eq(left, right).ok_or_else(uncomparable);
    }
    let (l, r) = (merge_key_of(left, mk)?, merge_key_of(right, mk)?);
    Key::One(l).go_eq(&Key::One(r)).ok_or_else(uncomparable)
}

/// The value of `item`'s merge key `mk`, read with [`Document::field`] (an
/// order entry kept as text is not decoded); an error where the
/// reference's type assertion or lookup fails.
fn merge_key_of<'e, P: Document>(item: &'e P, mk: &str) -> Result<KeyValue<'e>> {
    match item.field(mk) {
        Field::Value(v) => Ok(v),
        Field::NotObject => Err(bad_arg(GoKind::Object, &item.to_json())),
        Field::Missing => Err(no_merge_key(&item.as_object().map(|m| m.as_json_map()).unwrap_or_default(), mk)),
    }
}

/// `validateMergeKeyInLists` for one item: an object carrying `mk`.
pub(crate) fn check_merge_key<P: Document>(item: &P, mk: &str) -> Result<()> {
    merge_key_of(item, mk).map(drop)
}

/// `normalizeElementOrder` for a list of scalars: patch items sorted by
/// the patch order, the server's own by the server order, interleaved.
pub(crate) fn normalize_scalar_order<D: Document>(
    patch_items: Vec<D>,
    server_only: Vec<D>,
    patch_order: &[D],
    server_order: &[D],
) -> Result<Vec<D>> {
    let patch_items = sort_scalars(patch_items, patch_order)?;
    let v = ValueIndex::of_members(server_order.iter().map(D::as_member));
    let server_only = sort_by_values(server_only, &v)?;
    let pos = |items: &[D]| -> Vec<Lookup> { items.iter().map(|e| v.lookup(&Key::One(e.as_member()))).collect() };
    let lp = pos(&server_only);
    let rp = pos(&patch_items);
    merge_sorted_lookup(server_only, &lp, patch_items, &rp).map_err(|Uncomparable| uncomparable())
}

/// `normalizeSliceOrder` for scalars: sorted by position in `order`.
pub(crate) fn sort_scalars<D: Document>(items: Vec<D>, order: &[D]) -> Result<Vec<D>> {
    sort_by_values(items, &ValueIndex::of_members(order.iter().map(D::as_member)))
}

fn sort_by_values<D: Document>(items: Vec<D>, idx: &ValueIndex<'_>) -> Result<Vec<D>> {
    let pos: Vec<Lookup> = items.iter().map(|e| idx.lookup(&Key::One(e.as_member()))).collect();
    sort_by_lookup(items, pos).map_err(|Uncomparable| uncomparable())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order Go's sort leaves items with equal keys in (`<=`, as the
    /// reference sorts keyed lists), as kubectl 1.33 (Go 1.24) sends it:
    /// the patch of a Service whose `n` ports, all port 8080, are renamed
    /// `b0`, `b1`, ... lists them in this order (its walk over the sorted
    /// list). Up to 12 items Go's insertion sort reverses them; beyond, its
    /// partitions and pattern breaking scatter them.
    #[test]
    fn equal_keys_sort_as_kubectl_sorts_them() {
        let seen: [(usize, &[usize]); 6] = [
            (13, &[11, 10, 9, 8, 7, 0, 5, 4, 3, 2, 1, 12, 6]),
            (14, &[11, 10, 9, 8, 7, 13, 5, 4, 3, 2, 1, 12, 0, 6]),
            (16, &[11, 10, 9, 0, 3, 13, 15, 4, 7, 2, 1, 12, 14, 6, 5, 8]),
            (20, &[1, 6, 4, 19, 12, 7, 9, 8, 11, 15, 14, 0, 2, 13, 5, 3, 18, 17, 16, 10]),
            (
                60,
                &[
                    13, 5, 29, 17, 34, 33, 9, 41, 24, 39, 21, 56, 35, 52, 43, 11, 31, 7, 47, 3, 0, 59, 46, 26, 38, 54,
                    22, 36, 18, 44, 16, 19, 14, 48, 12, 32, 10, 42, 8, 53, 6, 20, 4, 28, 15, 40, 58, 27, 55, 30, 45,
                    37, 23, 49, 57, 2, 50, 1, 51, 25,
                ],
            ),
            (
                100,
                &[
                    77, 99, 21, 69, 53, 37, 85, 9, 49, 47, 91, 98, 33, 54, 86, 81, 41, 89, 43, 66, 23, 51, 11, 55, 27,
                    63, 59, 31, 67, 94, 71, 93, 75, 97, 79, 39, 24, 19, 87, 57, 90, 0, 3, 22, 48, 10, 50, 35, 52, 4,
                    62, 26, 56, 12, 58, 28, 92, 60, 30, 64, 14, 25, 32, 68, 6, 70, 34, 72, 16, 74, 36, 17, 44, 78, 38,
                    80, 18, 82, 40, 84, 8, 96, 42, 46, 20, 65, 95, 1, 5, 13, 29, 61, 73, 15, 76, 7, 83, 2, 88, 45,
                ],
            ),
        ];
        for (n, want) in seen {
            let mut items: Vec<(&str, usize)> = (0..n).map(|i| ("8080", i)).collect();
            go_sort_by(&mut items, |a, b| a.0 <= b.0);
            let got: Vec<usize> = items.iter().map(|(_, i)| *i).collect();
            assert_eq!(got, want, "{n} equal keys");
        }
    }

    /// Go's sort sorts: any keys, strict or not, every length.
    #[test]
    fn go_sort_sorts() {
        let mut seed = 7u64;
        for n in 0..300 {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (seed >> 33) % (1 + n as u64 / 3)
                })
                .collect();
            for strict in [false, true] {
                let mut items = keys.clone();
                go_sort_by(&mut items, |a, b| if strict { a < b } else { a <= b });
                let mut want = keys.clone();
                want.sort_unstable();
                assert_eq!(items, want, "{n} keys");
            }
        }
    }

    #[test]
    fn consistent_positions_sort_stably() {
        let items = vec!["c", "a", "b", "a2"];
        let pos = vec![Some(2), Some(0), Some(1), Some(0)];
        assert_eq!(sort_by_position(items, pos), vec!["a", "a2", "b", "c"]);
    }

    #[test]
    fn missing_items_bubble_to_the_front_like_go_insertion_sort() {
        // less(x, y) is true whenever either is missing, so insertion sort
        // swaps a missing item (and the item after it) forward.
        let items = vec!["a", "b", "x", "c"];
        let pos = vec![Some(0), Some(1), None, Some(2)];
        // i=1: less(b,a)? 1<0 no. i=2: less(x,b) yes -> a x b c; less(x,a) yes -> x a b c.
        // i=3: less(c,b)? 2<1 no.
        assert_eq!(sort_by_position(items, pos), vec!["x", "a", "b", "c"]);
    }

    #[test]
    fn go_stable_sort_matches_a_stable_sort_on_long_consistent_input() {
        let n = 97;
        let pos: Vec<Option<usize>> = (0..n).map(|i| Some((i * 37) % 11)).collect();
        let perm = go_stable_order(n, &mut |a, b| pos[a] < pos[b]);
        let mut expected: Vec<usize> = (0..n).collect();
        expected.sort_by_key(|&i| pos[i]);
        assert_eq!(perm, expected);
    }

    #[test]
    fn an_uncomparable_item_fails_only_where_go_evaluates_it() {
        // One item: Go's sort makes no comparison.
        let (panics, missing) = (Lookup::UNCOMPARABLE, Lookup::MISSING);
        assert_eq!(sort_by_lookup(vec!["m"], vec![panics]), Ok(vec!["m"]));
        // A missing first argument short-circuits the comparator.
        assert_eq!(sort_by_lookup(vec!["m", "x"], vec![panics, missing]), Ok(vec!["x", "m"]));
        assert_eq!(sort_by_lookup(vec!["m", "a"], vec![panics, Lookup::at(0)]), Err(Uncomparable));
        // The merge looks both heads up only while both lists have items.
        assert_eq!(merge_sorted_lookup(vec![], &[], vec!["m"], &[panics]), Ok(vec!["m"]));
        assert_eq!(merge_sorted_lookup(vec!["a"], &[Lookup::at(0)], vec!["m"], &[panics]), Err(Uncomparable));
    }

    #[test]
    fn server_only_items_interleave_by_server_position() {
        // live [1,2,9,3,4], order [2,1,4,3]: server-only 9 sits before 4 and 3.
        let left = vec![9];
        let right = vec![2, 1, 4, 3];
        let pos_v =
            |x: &i32| [1, 2, 9, 3, 4].iter().position(|y| y == x).map_or(Lookup::MISSING, |p| Lookup::at(p as u32));
        let lp: Vec<_> = left.iter().map(pos_v).collect();
        let rp: Vec<_> = right.iter().map(pos_v).collect();
        assert_eq!(merge_sorted(left, &lp, right, &rp), vec![2, 1, 9, 4, 3]);
    }
}
