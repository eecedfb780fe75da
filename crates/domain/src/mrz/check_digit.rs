//! The Doc 9303 check digit (Part 3, section 4.9).
//!
//! Each character gets a value (digits their own, `A` to `Z` 10 to 35, the filler `<`
//! 0), the values are weighted 7, 3, 1, 7, 3, 1, ... from the left, and the check digit
//! is the sum modulo 10.

/// The weights Doc 9303 repeats over a field, from its first character.
const WEIGHTS: [u32; 3] = [7, 3, 1];

/// The value of one MRZ character in a check digit sum: digits their own value, `A`
/// to `Z` 10 to 35, and the filler `<` 0. Characters outside the MRZ set count as the
/// filler does; the parser refuses them before any check is computed.
pub(crate) fn character_value(character: u8) -> u32 {
    match character {
        b'0'..=b'9' => u32::from(character - b'0'),
        b'A'..=b'Z' => u32::from(character - b'A') + 10,
        _ => 0,
    }
}

/// The check digit of `data`, as Doc 9303 computes it (weights 7-3-1, `<` = 0,
/// `A` = 10 .. `Z` = 35). `check_digit("L898902C3")` is 6.
pub fn check_digit(data: &str) -> u8 {
    check_digit_of_bytes(data.bytes())
}

/// The check digit of a sequence of MRZ characters.
pub(crate) fn check_digit_of_bytes(data: impl IntoIterator<Item = u8>) -> u8 {
    let sum: u32 = data
        .into_iter()
        .zip(WEIGHTS.iter().cycle())
        .map(|(character, weight)| character_value(character) * weight)
        .sum();
    // A remainder of 10 is below 256.
    u8::try_from(sum % 10).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_have_their_doc_9303_values() {
        assert_eq!(character_value(b'0'), 0);
        assert_eq!(character_value(b'9'), 9);
        assert_eq!(character_value(b'A'), 10);
        assert_eq!(character_value(b'Z'), 35);
        assert_eq!(character_value(b'<'), 0);
    }

    #[test]
    fn worked_examples_of_part_3() {
        // Part 3, 4.9: the date 520727 has check digit 3 (5x7 + 2x3 + 0x1 + 7x7 + 2x3 + 7x1 = 103).
        assert_eq!(check_digit("520727"), 3);
        // The document number of the Part 3 example, AB2134<<<, has check digit 5.
        assert_eq!(check_digit("AB2134<<<"), 5);
    }

    #[test]
    fn fillers_count_as_zero() {
        assert_eq!(check_digit("<<<<<<<<<<<<<<"), 0);
        assert_eq!(check_digit("1<<"), check_digit("100"));
        assert_eq!(check_digit(""), 0);
    }
}
