//! Allocation-free string similarities over the ASCII bytes of normalised tokens. They give the
//! same values as `strsim::jaro_winkler` and `strsim::osa_distance` (tested), without the
//! heap allocations and `char` counting that dominated screening time.

/// Longest input handled on the stack; longer inputs fall back to `strsim`.
const STACK: usize = 64;

/// Jaro similarity of two byte strings.
fn jaro(a: &[u8], b: &[u8]) -> f32 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let search_range = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_flags = [false; STACK];
    let mut b_flags = [false; STACK];
    let mut matches = 0usize;
    for (i, &ac) in a.iter().enumerate() {
        let lo = i.saturating_sub(search_range);
        let hi = b.len().min(i + search_range + 1);
        for j in lo..hi {
            if !b_flags[j] && b[j] == ac {
                a_flags[i] = true;
                b_flags[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let mut transpositions = 0usize;
    let mut k = 0usize;
    for (i, &ac) in a.iter().enumerate() {
        if !a_flags[i] {
            continue;
        }
        while k < b.len() && !b_flags[k] {
            k += 1;
        }
        if k < b.len() {
            if b[k] != ac {
                transpositions += 1;
            }
            k += 1;
        }
    }
    transpositions /= 2;
    let m = matches as f32;
    (m / a.len() as f32 + m / b.len() as f32 + (matches - transpositions) as f32 / m) / 3.0
}

/// Jaro-Winkler similarity (prefix scale 0.1, up to four letters, above 0.7).
pub fn jaro_winkler(a: &str, b: &str) -> f32 {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() > STACK || b.len() > STACK || !a.is_ascii() || !b.is_ascii() {
        return strsim::jaro_winkler(&String::from_utf8_lossy(a), &String::from_utf8_lossy(b))
            as f32;
    }
    let sim = jaro(a, b);
    if sim > 0.7 {
        let prefix = a.iter().take(4).zip(b).take_while(|(x, y)| x == y).count();
        sim + 0.1 * prefix as f32 * (1.0 - sim)
    } else {
        sim
    }
}

/// Optimal string alignment distance (Levenshtein with adjacent transpositions).
pub fn osa_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() >= STACK || b.len() >= STACK || !a.is_ascii() || !b.is_ascii() {
        return strsim::osa_distance(&String::from_utf8_lossy(a), &String::from_utf8_lossy(b));
    }
    let n = b.len();
    let mut two = [0usize; STACK];
    let mut prev = [0usize; STACK];
    let mut curr = [0usize; STACK];
    for j in 0..=n {
        two[j] = j;
        prev[j] = j;
    }
    for i in 0..a.len() {
        curr[0] = i + 1;
        for j in 0..n {
            let cost = usize::from(a[i] != b[j]);
            let mut d = (curr[j] + 1).min(prev[j + 1] + 1).min(prev[j] + cost);
            if i > 0 && j > 0 && a[i] != b[j] && a[i] == b[j - 1] && b[j] == a[i - 1] {
                d = d.min(two[j - 1] + 1);
            }
            curr[j + 1] = d;
        }
        std::mem::swap(&mut two, &mut prev);
        std::mem::swap(&mut prev, &mut curr);
    }
    prev[n]
}

/// Similarity from the edit distance: `1 − distance / longer length`.
pub fn edit_similarity(a: &str, b: &str) -> f32 {
    let longest = a.len().max(b.len()).max(1);
    1.0 - osa_distance(a, b) as f32 / longest as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_values_as_strsim() {
        let words = [
            "",
            "a",
            "ab",
            "martha",
            "marhta",
            "dixon",
            "dicksonx",
            "abdalrahman",
            "abdulrahman",
            "mohammed",
            "muhammad",
            "qaddafi",
            "kadhafi",
            "jong",
            "yong",
            "young",
            "wong",
            "subandrio",
            "subianto",
            "xixixixixixi",
            "ca",
            "abc",
        ];
        for a in words {
            for b in words {
                let expected = strsim::jaro_winkler(a, b) as f32;
                assert!((jaro_winkler(a, b) - expected).abs() < 1e-5, "{a} {b}");
                assert_eq!(osa_distance(a, b), strsim::osa_distance(a, b), "{a} {b}");
            }
        }
        let long = "x".repeat(200);
        assert_eq!(osa_distance(&long, "xx"), 198);
        assert!(jaro_winkler(&long, &long) > 0.99);
    }
}
