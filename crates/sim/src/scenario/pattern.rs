//! Node-name patterns for workload endpoints: shell-style globs.
//!
//! `*` matches any run of characters (also none), `?` exactly one, `[abc]`
//! one of the listed characters, `[a-z]` one in the range, and `[!...]` one
//! not listed. Everything else matches itself. A string without `*`, `?` or
//! `[` is a plain name, not a pattern.

pub fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Checks a pattern's syntax (every `[` closed, no empty class).
pub fn check(pat: &str) -> Result<(), String> {
    let p: Vec<char> = pat.chars().collect();
    let mut i = 0;
    while i < p.len() {
        if p[i] == '[' {
            match class_end(&p, i) {
                Some(end) => i = end,
                None => return Err(format!("'[' at position {} is not closed by ']' (or the class is empty)", i + 1)),
            }
        }
        i += 1;
    }
    Ok(())
}

/// Index of the `]` closing the class that opens at `p[open]`; a `]` right
/// after `[` or `[!` belongs to the class.
fn class_end(p: &[char], open: usize) -> Option<usize> {
    let mut j = open + 1;
    if p.get(j) == Some(&'!') {
        j += 1;
    }
    let first = j;
    while j < p.len() {
        if p[j] == ']' && j > first {
            return Some(j);
        }
        j += 1;
    }
    None
}

fn class_matches(class: &[char], c: char) -> bool {
    let (negate, set) = match class.first() {
        Some('!') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut hit = false;
    let mut k = 0;
    while k < set.len() {
        if k + 2 < set.len() && set[k + 1] == '-' {
            hit |= set[k] <= c && c <= set[k + 2];
            k += 3;
        } else {
            hit |= set[k] == c;
            k += 1;
        }
    }
    hit != negate
}

/// Whether `name` matches `pat` (a pattern that passed `check`).
pub fn matches(pat: &str, name: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let s: Vec<char> = name.chars().collect();
    // Iterative matching with backtracking to the last `*`.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, si));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => match class_end(&p, pi) {
                Some(end) if class_matches(&p[pi + 1..end], s[si]) => Some(end + 1),
                _ => None,
            },
            Some(&c) if c == s[si] => Some(pi + 1),
            _ => None,
        };
        match (step, star) {
            (Some(next), _) => {
                pi = next;
                si += 1;
            }
            (None, Some((sp, ss))) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            (None, None) => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(matches("h*", "h12_3"));
        assert!(!matches("h*", "r12"));
        assert!(matches("h*_*[02468]", "h12_48"));
        assert!(!matches("h*_*[02468]", "h12_47"));
        assert!(matches("h*_*[13579]", "h12_47"));
        assert!(matches("h1?_0", "h12_0"));
        assert!(!matches("h1?_0", "h1_0"));
        assert!(matches("s[0-4]", "s3"));
        assert!(!matches("s[!0-4]", "s3"));
        assert!(matches("*", ""));
        assert!(matches("a*b*c", "aXbYbc"));
        assert!(!matches("a*b*c", "aXbYb"));
        assert!(matches("[]]x", "]x"));
        assert!(check("h[0-9").is_err());
        assert!(check("h[]").is_err());
        assert!(check("h[0-9]*").is_ok());
        assert!(is_pattern("h*") && !is_pattern("h1"));
    }
}
