//! Tool and parameter names folded for repair: case and separators away, and
//! split into words.

/// The name with case and `-`/`_`/`.`/space separators folded away, so that
/// camelCase, snake_case and kebab-case spellings compare equal.
pub fn normalise_name(name: &str) -> String {
    let separator = |c: &char| matches!(c, '_' | '-' | '.' | ' ');
    if name.is_ascii() {
        return name.chars().filter(|c| !separator(c)).map(|c| c.to_ascii_lowercase()).collect();
    }
    name.chars().filter(|c| !separator(c)).flat_map(char::to_lowercase).collect()
}

/// Words of a parameter name (snake, kebab or camel case), longer than two letters.
pub fn words(name: &str) -> Vec<String> {
    // A word too short to keep is cleared, its room kept for the next.
    fn finish(word: &mut String, out: &mut Vec<String>) {
        if word.chars().count() > 2 {
            out.push(std::mem::take(word));
        } else {
            word.clear();
        }
    }
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        let boundary = matches!(c, '_' | '-' | '.' | ' ') || (c.is_uppercase() && prev_lower);
        if boundary && !current.is_empty() {
            finish(&mut current, &mut out);
        }
        if c.is_ascii_alphanumeric() {
            current.push(c.to_ascii_lowercase());
        } else if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    finish(&mut current, &mut out);
    out
}
