//! Counted nouns in what calltape prints: `1 unit`, `2 units`, never `1 units`
//! or `unit(s)`.

/// `n` and the noun, plural unless `n` is 1 (every noun calltape counts
/// takes an `s`).
pub fn count(n: impl TryInto<u64> + std::fmt::Display + Copy, noun: &str) -> String {
    if n.try_into().ok() == Some(1) {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_every_other_count_plural() {
        assert_eq!(count(1, "unit"), "1 unit");
        assert_eq!(count(0, "model"), "0 models");
        assert_eq!(count(3, "column"), "3 columns");
    }
}
