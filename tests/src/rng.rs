//! A small seeded PRNG (SplitMix64): the same seed gives the same cases on
//! every platform and compiler version.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// Up to `max` distinct items of `items`, in random order.
    pub fn subset<T: Clone>(&mut self, items: &[T], max: usize) -> Vec<T> {
        let mut all = items.to_vec();
        self.shuffle(&mut all);
        let n = self.below(max.min(all.len()) + 1);
        all.truncate(n);
        all
    }
}

/// The seed of case `index` of a run seeded with `seed`: every case has its
/// own generator, so a case does not depend on the ones before it.
pub fn case_seed(seed: u64, index: usize) -> u64 {
    Rng::new(seed ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
}
