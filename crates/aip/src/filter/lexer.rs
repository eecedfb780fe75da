//! The AIP-160 lexer (Appendix B of the checklist).
//!
//! Whitespace is not a token of its own: each [`Token`] records whether whitespace
//! came before it, which is all the parser needs to apply the grammar's `WS` rules
//! (`NOT` needs trailing whitespace, a sequence is factors separated by whitespace).
//!
//! | Token | Lexeme |
//! | --- | --- |
//! | `(` `)` `.` `,` `-` | themselves |
//! | comparators | `=` `!=` `<` `<=` `>` `>=` `:` |
//! | STRING | `"…"` or `'…'` with CEL escapes: `\\` `\"` `\'` `` \` `` `\?` `\a` `\b` `\f` `\n` `\r` `\t` `\v`, `\xHH`, `\uHHHH`, `\UHHHHHHHH`, octal `\OOO` (code points, at most `\377`) |
//! | NUMBER | a run of ASCII digits, or `0x`/`0X` and hex digits |
//! | AND / OR / NOT | exactly these upper-case words, standing alone |
//! | TEXT | any other maximal run of characters that are neither whitespace nor one of `( ) - . = : < > ! ,` |
//!
//! A quote starts a STRING only at the start of a token; inside a TEXT run it is an
//! ordinary character. Literals are single-line text: a control character (C0, DEL or
//! C1) in a TEXT run, or in a STRING raw or from an escape (`\n`, `\x00`, `\u0000`,
//! `\000`), is a [`FilterErrorKind::ControlCharacter`](super::FilterErrorKind) error.
//! Whitespace controls between tokens (TAB, LF, CR) are whitespace. `2.5` lexes as NUMBER DOT NUMBER and `1.2s` as NUMBER DOT TEXT;
//! the parser rebuilds such numbers. Lower-case `and`/`or`/`not` are TEXT.

use super::error::{FilterError, FilterErrorKind, Position};

/// What a [`Token`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenKind {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `.`
    Dot,
    /// `,`
    Comma,
    /// `-`
    Minus,
    /// `=`
    Equals,
    /// `!=`
    NotEquals,
    /// `<`
    LessThan,
    /// `<=`
    LessEquals,
    /// `>`
    GreaterThan,
    /// `>=`
    GreaterEquals,
    /// `:` (the has operator)
    Has,
    /// The keyword `AND`.
    And,
    /// The keyword `OR`.
    Or,
    /// The keyword `NOT`.
    Not,
    /// A quoted string, with its escapes already decoded.
    String(String),
    /// Digits, or `0x` and hex digits, as written.
    Number(String),
    /// Any other run of non-special characters, as written.
    Text(String),
}

impl TokenKind {
    /// A short description for error messages (`'AND'`, `'('`, `"x"`).
    pub(crate) fn describe(&self) -> String {
        let fixed = match self {
            Self::LParen => "'('",
            Self::RParen => "')'",
            Self::Dot => "'.'",
            Self::Comma => "','",
            Self::Minus => "'-'",
            Self::Equals => "'='",
            Self::NotEquals => "'!='",
            Self::LessThan => "'<'",
            Self::LessEquals => "'<='",
            Self::GreaterThan => "'>'",
            Self::GreaterEquals => "'>='",
            Self::Has => "':'",
            Self::And => "'AND'",
            Self::Or => "'OR'",
            Self::Not => "'NOT'",
            Self::String(s) => return format!("the string {s:?}"),
            Self::Number(s) | Self::Text(s) => return format!("'{s}'"),
        };
        fixed.to_owned()
    }
}

/// One lexical token of a filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// Where it starts.
    pub position: Position,
    /// Byte offset just past its last character.
    pub end: usize,
    /// Whether whitespace came directly before it.
    pub space_before: bool,
}

/// Characters that end a TEXT run (besides whitespace).
fn is_terminator(ch: char) -> bool {
    matches!(
        ch,
        '(' | ')' | '-' | '.' | '=' | ':' | '<' | '>' | '!' | ','
    )
}

struct Cursor<'a> {
    input: &'a str,
    pos: Position,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.input[self.pos.offset..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let ch = self.peek()?;
        self.pos.offset += ch.len_utf8();
        if ch == '\n' {
            self.pos.line += 1;
            self.pos.column = 1;
        } else {
            self.pos.column += 1;
        }
        Some(ch)
    }
}

/// Splits a filter into tokens.
///
/// # Errors
///
/// A [`FilterErrorKind::Syntax`](super::FilterErrorKind::Syntax) error for an
/// unterminated string, an unknown escape sequence, or a `!` not followed by `=`; a
/// [`FilterErrorKind::ControlCharacter`](super::FilterErrorKind::ControlCharacter)
/// error for a control character in a literal.
pub fn tokenize(input: &str) -> Result<Vec<Token>, FilterError> {
    let mut cursor = Cursor {
        input,
        pos: Position::START,
    };
    let mut tokens = Vec::new();
    let mut space_before = false;
    while let Some(ch) = cursor.peek() {
        if ch.is_whitespace() {
            cursor.bump();
            space_before = true;
            continue;
        }
        let start = cursor.pos;
        let kind = match ch {
            '"' | '\'' => lex_string(&mut cursor)?,
            '!' => {
                cursor.bump();
                if cursor.peek() == Some('=') {
                    cursor.bump();
                    TokenKind::NotEquals
                } else {
                    return Err(FilterError::syntax(
                        start,
                        "'!' must be followed by '='; negate a restriction with NOT or '-'",
                    ));
                }
            }
            '<' | '>' => {
                cursor.bump();
                let or_equal = cursor.peek() == Some('=');
                if or_equal {
                    cursor.bump();
                }
                match (ch, or_equal) {
                    ('<', false) => TokenKind::LessThan,
                    ('<', true) => TokenKind::LessEquals,
                    (_, false) => TokenKind::GreaterThan,
                    (_, true) => TokenKind::GreaterEquals,
                }
            }
            '(' | ')' | '.' | ',' | '-' | '=' | ':' => {
                cursor.bump();
                match ch {
                    '(' => TokenKind::LParen,
                    ')' => TokenKind::RParen,
                    '.' => TokenKind::Dot,
                    ',' => TokenKind::Comma,
                    '-' => TokenKind::Minus,
                    '=' => TokenKind::Equals,
                    _ => TokenKind::Has,
                }
            }
            _ => lex_text(&mut cursor)?,
        };
        tokens.push(Token {
            kind,
            position: start,
            end: cursor.pos.offset,
            space_before,
        });
        space_before = false;
    }
    Ok(tokens)
}

/// The error for a control character at `position` of a literal.
fn control_character(position: Position, ch: char) -> FilterError {
    FilterError::new(
        FilterErrorKind::ControlCharacter,
        position,
        format!(
            "filter values must not contain control characters (U+{:04X} found)",
            u32::from(ch)
        ),
        None,
    )
}

fn lex_text(cursor: &mut Cursor<'_>) -> Result<TokenKind, FilterError> {
    let start = cursor.pos.offset;
    while let Some(ch) = cursor.peek() {
        if ch.is_whitespace() || is_terminator(ch) {
            break;
        }
        if ch.is_control() {
            return Err(control_character(cursor.pos, ch));
        }
        cursor.bump();
    }
    let text = &cursor.input[start..cursor.pos.offset];
    Ok(match text {
        "AND" => TokenKind::And,
        "OR" => TokenKind::Or,
        "NOT" => TokenKind::Not,
        _ if is_number(text) => TokenKind::Number(text.to_owned()),
        _ => TokenKind::Text(text.to_owned()),
    })
}

/// Digits only, or `0x`/`0X` followed by at least one hex digit.
fn is_number(text: &str) -> bool {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn lex_string(cursor: &mut Cursor<'_>) -> Result<TokenKind, FilterError> {
    let open = cursor.pos;
    let quote = cursor.bump();
    let mut value = String::new();
    loop {
        let here = cursor.pos;
        match cursor.bump() {
            None => {
                return Err(FilterError::syntax(
                    open,
                    "unterminated string: add the closing quote",
                ));
            }
            Some(ch) if Some(ch) == quote => return Ok(TokenKind::String(value)),
            Some(ch) => {
                let decoded = if ch == '\\' {
                    lex_escape(cursor, here)?
                } else {
                    ch
                };
                if decoded.is_control() {
                    return Err(control_character(here, decoded));
                }
                value.push(decoded);
            }
        }
    }
}

fn lex_escape(cursor: &mut Cursor<'_>, backslash: Position) -> Result<char, FilterError> {
    let bad = |what: &str| {
        FilterError::syntax(
            backslash,
            format!("invalid escape sequence in string: {what}"),
        )
    };
    let Some(ch) = cursor.bump() else {
        return Err(bad("the string ends after '\\'"));
    };
    let simple = match ch {
        '\\' => Some('\\'),
        '"' => Some('"'),
        '\'' => Some('\''),
        '`' => Some('`'),
        '?' => Some('?'),
        'a' => Some('\u{07}'),
        'b' => Some('\u{08}'),
        'f' => Some('\u{0C}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{0B}'),
        _ => None,
    };
    if let Some(decoded) = simple {
        return Ok(decoded);
    }
    let (digits, radix) = match ch {
        'x' | 'X' => (2, 16),
        'u' => (4, 16),
        'U' => (8, 16),
        '0'..='3' => (2, 8),
        _ => return Err(bad(&format!("'\\{ch}' is not a known escape"))),
    };
    let mut code: u32 = if radix == 8 {
        ch.to_digit(8).unwrap_or(0)
    } else {
        0
    };
    for _ in 0..digits {
        let digit = cursor
            .peek()
            .and_then(|d| d.to_digit(radix))
            .ok_or_else(|| {
                bad(&format!(
                    "'\\{ch}' needs {digits} more digit(s) in base {radix}"
                ))
            })?;
        cursor.bump();
        code = code * radix + digit;
    }
    char::from_u32(code).ok_or_else(|| bad(&format!("U+{code:X} is not a valid character")))
}
