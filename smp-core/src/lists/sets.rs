//! Lists of scalars merged as sets: the append and de-duplication of the
//! merge strategy, as the reference does them in place.

use super::key::{KeyHasher, KeyMap, uncomparable};
use crate::doc::Document;
use crate::error::Result;
use crate::value::ScalarKey;

/// Removes duplicates the way the reference's `deduplicateScalars` does:
/// each later duplicate is overwritten by the current last element, so the
/// order is not preserved (`[1,1,2,3]` becomes `[1,3,2]`). Works in place on
/// `buf` like the Go code, leaving stale values past the returned length.
///
/// The Go loop compares every pair; here the copies of each value are found
/// by hashing and visited in position order, and every slot is written as
/// the Go loop writes it, so the result (stale tail included) is the same
/// in linear time (plus sorting the positions of each duplicated value).
pub(crate) fn dedup_scalars_in_place<D: Document>(buf: &mut [D]) -> Result<usize> {
    let n = buf.len();
    // The value id at each position, and the positions of each value (an
    // entry at or past the current length is stale).
    let mut id_at: Vec<usize> = Vec::with_capacity(n);
    let mut positions: Vec<Vec<usize>> = Vec::new();
    {
        let mut ids: KeyMap<ScalarKey<'_>, usize> = KeyMap::with_capacity_and_hasher(n, KeyHasher::default());
        for (p, v) in buf.iter().enumerate() {
            let next = positions.len();
            let id = *ids.entry(v.as_member().scalar().ok_or_else(uncomparable)?).or_insert(next);
            if id == next {
                positions.push(Vec::new());
            }
            positions[id].push(p);
            id_at.push(id);
        }
    }
    if positions.len() == n {
        return Ok(n);
    }
    let mut len = n;
    let mut i = 0;
    while i + 1 < len {
        let x = id_at[i];
        if positions[x].len() > 1 {
            // The later copies of `x`, in position order: the Go loop's holes.
            // (As `u64`s, sorted as the crate sorts hashes.)
            let mut copies: Vec<u64> = Vec::with_capacity(positions[x].len());
            for p in std::mem::take(&mut positions[x]) {
                if p > i && p < len {
                    copies.push(p as u64);
                }
            }
            copies.sort_unstable();
            // copies[front..back] are still in the list.
            let (mut front, mut back) = (0, copies.len());
            while front < back {
                let hole = copies[front] as usize;
                // Go: `s[j] = s[length]; length--`, then `s[j]` is tested again.
                loop {
                    let last = len - 1;
                    if last != hole {
                        buf[hole] = buf[last].clone();
                    }
                    len -= 1;
                    let y = id_at[last];
                    if y == x {
                        // The last element was the last copy of `x`.
                        back -= 1;
                        if last == hole {
                            break;
                        }
                        continue;
                    }
                    id_at[hole] = y;
                    positions[y].push(hole);
                    break;
                }
                front += 1;
            }
        }
        i += 1;
    }
    Ok(len)
}

/// Capacity of a list the reference decoded from JSON: the decoder appends
/// one element at a time, so it is the next power of two (up to 512; larger
/// lists are assumed full, where Go's growth rule gets involved).
pub(crate) fn decoded_capacity(n: usize) -> usize {
    if n == 0 || n > 512 { n } else { n.next_power_of_two() }
}

/// `append(original, patch...)` then `deduplicateScalars`. Returns the
/// merged set and the live list as the reference sees it afterwards: when
/// the patch fits in the live list's spare capacity, the append and the
/// in-place de-duplication write into the live list's memory.
pub(crate) fn merge_scalar_sets<D: Document>(original: Vec<D>, patch: &[D]) -> Result<(Vec<D>, Vec<D>)> {
    let n = original.len();
    let shares_memory = n + patch.len() <= decoded_capacity(n);
    let mut buf = original;
    let live = if shares_memory { Vec::new() } else { buf.clone() };
    buf.extend(patch.iter().cloned());
    let len = dedup_scalars_in_place(&mut buf)?;
    let live = if shares_memory { buf[..n].to_vec() } else { live };
    buf.truncate(len);
    Ok((buf, live))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn dedup_scrambles_like_the_reference() {
        let dedup = |x: Value| {
            let mut buf = x.as_array().unwrap().clone();
            let n = dedup_scalars_in_place(&mut buf).unwrap();
            (Value::Array(buf[..n].to_vec()), Value::Array(buf))
        };
        assert_eq!(dedup(json!([1, 1, 2, 3])), (json!([1, 3, 2]), json!([1, 3, 2, 3])));
        assert_eq!(dedup(json!([1, 2, 3])).0, json!([1, 2, 3]));
        assert_eq!(dedup(json!([1, 1, 1])).0, json!([1]));
    }

    /// The reference's quadratic loop, step for step.
    fn dedup_quadratic(s: &mut [Value]) -> usize {
        let mut length = s.len();
        let mut i = 0;
        while i + 1 < length {
            let mut j = i + 1;
            while j < length {
                if crate::value::go_eq(&s[i], &s[j]) == Some(true) {
                    s[j] = s[length - 1].clone();
                    length -= 1;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
        length
    }

    #[test]
    fn linear_dedup_writes_what_the_quadratic_loop_writes() {
        // Values that are `==` but print differently (0.0 and -0.0) show
        // which copy each slot received.
        let pool = [json!(0.0), json!(-0.0), json!(1), json!(1.0), json!("1"), json!("a"), json!(true), json!(null)];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        for case in 0..20_000 {
            let len = next(14);
            let width = 1 + next(pool.len());
            let list: Vec<Value> = (0..len).map(|_| pool[next(width)].clone()).collect();
            let (mut fast, mut slow) = (list.clone(), list.clone());
            let n_fast = dedup_scalars_in_place(&mut fast).unwrap();
            let n_slow = dedup_quadratic(&mut slow);
            let text = |l: &[Value]| l.iter().map(Value::to_string).collect::<Vec<_>>();
            assert_eq!((n_fast, text(&fast)), (n_slow, text(&slow)), "case {case}: {list:?}");
        }
    }
}
