//! Python's `random.Random` (Mersenne Twister, seeded from an int), as far
//! as BFCL's API classes use it: the ids they make must be the ids BFCL's
//! own classes make, or the state after a call would differ.

const N: usize = 624;
const M: usize = 397;

/// `random.Random(seed)`: the same draws as CPython's for `randint`, `random` and `uniform`.
///
/// The generator is seeded at its first draw, not when made: most of BFCL's
/// instances never draw, and seeding (2,500 bytes of state, two passes over
/// it) was a tenth of judging a trajectory. The draws are the same.
#[derive(Debug, Clone)]
pub struct PyRandom {
    seed: i128,
    twister: Option<Box<Twister>>,
}

/// The Mersenne Twister's state, as CPython's `random` keeps it.
#[derive(Debug, Clone)]
struct Twister {
    state: [u32; N],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)` for an int seed.
    pub fn new(seed: i128) -> PyRandom {
        PyRandom { seed, twister: None }
    }

    fn next_u32(&mut self) -> u32 {
        let seed = self.seed;
        self.twister.get_or_insert_with(|| Box::new(Twister::seeded(seed))).next_u32()
    }
}

impl Twister {
    /// Seeded as CPython seeds from an int (`init_by_array` of its 32-bit words).
    fn seeded(seed: i128) -> Twister {
        let mut magnitude = seed.unsigned_abs();
        let mut key = Vec::new();
        while magnitude > 0 {
            key.push(magnitude as u32);
            magnitude >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        let mut r = Twister { state: [0; N], index: N };
        r.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = r.state[i - 1] ^ (r.state[i - 1] >> 30);
            r.state[i] = (r.state[i] ^ prev.wrapping_mul(1_664_525)).wrapping_add(key[j]).wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                r.state[0] = r.state[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = r.state[i - 1] ^ (r.state[i - 1] >> 30);
            r.state[i] = (r.state[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                r.state[0] = r.state[N - 1];
                i = 1;
            }
        }
        r.state[0] = 0x8000_0000;
        r
    }

    fn init_genrand(&mut self, seed: u32) {
        self.state[0] = seed;
        for i in 1..N {
            let prev = self.state[i - 1] ^ (self.state[i - 1] >> 30);
            self.state[i] = 1_812_433_253u32.wrapping_mul(prev).wrapping_add(i as u32);
        }
        self.index = N;
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            for k in 0..N {
                let y = (self.state[k] & 0x8000_0000) | (self.state[(k + 1) % N] & 0x7fff_ffff);
                let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.state[k] = self.state[(k + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

impl PyRandom {
    /// `getrandbits(k)` for `k` ≤ 128: words from the least significant up.
    fn getrandbits(&mut self, k: u32) -> u128 {
        if k <= 32 {
            return (self.next_u32() >> (32 - k)) as u128;
        }
        let (mut out, mut shift, mut left) = (0u128, 0, k);
        while left > 0 {
            let mut word = self.next_u32();
            if left < 32 {
                word >>= 32 - left;
            }
            out |= (word as u128) << shift;
            shift += 32;
            left = left.saturating_sub(32);
        }
        out
    }

    /// `random()`: a float in [0, 1) of 53 bits, from two words (`a >> 5`, `b >> 6`).
    pub fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (f64::from(a) * 67_108_864.0 + f64::from(b)) / 9_007_199_254_740_992.0
    }

    /// `uniform(a, b)`: `a + (b - a) * random()`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.random()
    }

    /// `randint(a, b)`: a ≤ n ≤ b, drawn as CPython draws it (`_randbelow`).
    pub fn randint(&mut self, a: i128, b: i128) -> i128 {
        let n = (b - a + 1) as u128;
        let bits = 128 - n.leading_zeros();
        loop {
            let r = self.getrandbits(bits);
            if r < n {
                return a + r as i128;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_as_cpython() {
        // python3 -c "import random; r=random.Random(200191); print([r.randint(10000, 99999) for _ in range(3)])"
        let mut r = PyRandom::new(200191);
        let got: Vec<i128> = (0..3).map(|_| r.randint(10000, 99999)).collect();
        assert_eq!(got, PYTHON_200191);
        // python3 -c "import random; r=random.Random(141053); print(r.randint(100000000000, 999999999999))"
        assert_eq!(PyRandom::new(141053).randint(100_000_000_000, 999_999_999_999), PYTHON_141053);
    }

    #[test]
    fn floats_as_cpython() {
        // python3 -c "import random; r=random.Random(42); print([r.random() for _ in range(3)], r.uniform(1.5, 7.25))"
        let mut r = PyRandom::new(42);
        let got: Vec<f64> = (0..3).map(|_| r.random()).collect();
        assert_eq!(got, [0.6394267984578837, 0.025010755222666936, 0.27502931836911926]);
        assert_eq!(r.uniform(1.5, 7.25), 2.783461744355731);
    }

    const PYTHON_200191: [i128; 3] = [67410, 41772, 24547];
    const PYTHON_141053: i128 = 262_919_693_687;
}
