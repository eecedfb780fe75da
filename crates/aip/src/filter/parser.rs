//! Recursive-descent parser for the AIP-160 grammar (Appendix A of the checklist).
//!
//! One function per production: `expression` (AND) > `sequence` (whitespace) >
//! `factor` (OR) > `term` (NOT, `-`) > `simple` (restriction or composite) >
//! `restriction` > `comparable` (member or function) > `arg`.

use super::FilterLimits;
use super::ast::{
    Arg, Comparable, Expr, Function, Member, Operator, Restriction, Value, ValueKind,
};
use super::error::{FilterError, FilterErrorKind, Position};
use super::lexer::{Token, TokenKind, tokenize};

/// Parses `input` within `limits`; `None` for an empty or all-whitespace filter.
pub(super) fn parse_with_limits(
    input: &str,
    limits: &FilterLimits,
) -> Result<Option<Expr>, FilterError> {
    if input.len() > limits.max_length {
        return Err(FilterError::new(
            FilterErrorKind::LimitExceeded,
            Position::START,
            format!(
                "the filter is {} bytes long; the limit is {} bytes",
                input.len(),
                limits.max_length
            ),
            None,
        ));
    }
    let tokens = tokenize(input)?;
    if tokens.is_empty() {
        return Ok(None);
    }
    let mut parser = Parser {
        tokens,
        next: 0,
        depth: 0,
        restrictions: 0,
        limits,
        end: end_position(input),
    };
    let expr = parser.expression()?;
    if let Some(token) = parser.peek() {
        let message = match token.kind {
            TokenKind::RParen => "unbalanced ')': there is no matching '('".to_owned(),
            _ => format!("unexpected {}", token.kind.describe()),
        };
        return Err(FilterError::syntax(token.position, message));
    }
    Ok(Some(expr))
}

fn end_position(input: &str) -> Position {
    let mut pos = Position::START;
    for ch in input.chars() {
        pos.offset += ch.len_utf8();
        if ch == '\n' {
            pos.line += 1;
            pos.column = 1;
        } else {
            pos.column += 1;
        }
    }
    pos
}

fn collapse(mut items: Vec<Expr>, build: fn(Vec<Expr>) -> Expr) -> Expr {
    match items.pop() {
        Some(only) if items.is_empty() => only,
        Some(last) => {
            items.push(last);
            build(items)
        }
        None => build(items),
    }
}

fn operator_of(kind: &TokenKind) -> Option<Operator> {
    Some(match kind {
        TokenKind::Equals => Operator::Equals,
        TokenKind::NotEquals => Operator::NotEquals,
        TokenKind::LessThan => Operator::LessThan,
        TokenKind::LessEquals => Operator::LessEquals,
        TokenKind::GreaterThan => Operator::GreaterThan,
        TokenKind::GreaterEquals => Operator::GreaterEquals,
        TokenKind::Has => Operator::Has,
        _ => return None,
    })
}

struct Parser<'l> {
    tokens: Vec<Token>,
    next: usize,
    depth: usize,
    restrictions: usize,
    limits: &'l FilterLimits,
    end: Position,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next)
    }

    fn peek_at(&self, ahead: usize) -> Option<&Token> {
        self.tokens.get(self.next + ahead)
    }

    fn advance(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.next).cloned();
        if token.is_some() {
            self.next += 1;
        }
        token
    }

    /// Whether the token `ahead` positions on is directly attached to the previous
    /// one (exists and has no whitespace before it).
    fn attached(&self, ahead: usize) -> bool {
        self.peek_at(ahead).is_some_and(|t| !t.space_before)
    }

    fn enter(&mut self, position: Position) -> Result<(), FilterError> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(FilterError::new(
                FilterErrorKind::LimitExceeded,
                position,
                format!(
                    "the filter nests parentheses and function calls more than {} levels deep",
                    self.limits.max_depth
                ),
                None,
            ));
        }
        Ok(())
    }

    fn count_restriction(&mut self, position: Position) -> Result<(), FilterError> {
        self.restrictions += 1;
        if self.restrictions > self.limits.max_restrictions {
            return Err(FilterError::new(
                FilterErrorKind::LimitExceeded,
                position,
                format!(
                    "the filter has more than {} restrictions",
                    self.limits.max_restrictions
                ),
                None,
            ));
        }
        Ok(())
    }

    /// `expression : sequence {WS AND WS sequence}`
    fn expression(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.sequence()?];
        while let Some(token) = self.peek().filter(|t| t.kind == TokenKind::And) {
            let position = token.position;
            if !token.space_before {
                return Err(FilterError::syntax(
                    position,
                    "AND must be preceded by whitespace",
                ));
            }
            self.check_keyword_followed("AND", position, 1)?;
            self.advance();
            items.push(self.sequence()?);
        }
        Ok(collapse(items, Expr::And))
    }

    /// Checks that the binary keyword at `ahead - 1` is followed by whitespace and
    /// something to combine.
    fn check_keyword_followed(
        &self,
        keyword: &str,
        position: Position,
        ahead: usize,
    ) -> Result<(), FilterError> {
        match self.peek_at(ahead) {
            None => Err(FilterError::syntax(
                position,
                format!("{keyword} must be followed by a restriction"),
            )),
            Some(next) if next.kind == TokenKind::LParen && !next.space_before => {
                Err(FilterError::syntax(
                    position,
                    format!(
                        "a function cannot be named {keyword}; put a space between {keyword} and '('"
                    ),
                ))
            }
            Some(next) if !next.space_before => Err(FilterError::syntax(
                position,
                format!("{keyword} must be followed by whitespace"),
            )),
            Some(next) if matches!(next.kind, TokenKind::RParen | TokenKind::Comma) => {
                Err(FilterError::syntax(
                    position,
                    format!("{keyword} must be followed by a restriction"),
                ))
            }
            Some(_) => Ok(()),
        }
    }

    /// `sequence : factor {WS factor}`
    fn sequence(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.factor()?];
        while let Some(token) = self.peek() {
            if matches!(
                token.kind,
                TokenKind::And | TokenKind::RParen | TokenKind::Comma
            ) {
                break;
            }
            if !token.space_before {
                let previous = self
                    .next
                    .checked_sub(1)
                    .and_then(|i| self.tokens.get(i))
                    .map_or_else(String::new, |t| format!(" after {}", t.kind.describe()));
                return Err(FilterError::syntax(
                    token.position,
                    format!(
                        "unexpected {}{previous}; separate restrictions with whitespace, and \
                         quote values that contain spaces, '-', '.' or ':' (timestamps must be quoted)",
                        token.kind.describe()
                    ),
                ));
            }
            items.push(self.factor()?);
        }
        Ok(collapse(items, Expr::Sequence))
    }

    /// `factor : term {WS OR WS term}`
    fn factor(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.term()?];
        while let Some(token) = self.peek().filter(|t| t.kind == TokenKind::Or) {
            let position = token.position;
            if !token.space_before {
                return Err(FilterError::syntax(
                    position,
                    "OR must be preceded by whitespace",
                ));
            }
            self.check_keyword_followed("OR", position, 1)?;
            self.advance();
            items.push(self.term()?);
        }
        Ok(collapse(items, Expr::Or))
    }

    /// Whether the token `ahead` would start a negation (`-` or `NOT` + whitespace).
    fn starts_negation(&self, ahead: usize) -> bool {
        match self.peek_at(ahead).map(|t| &t.kind) {
            Some(TokenKind::Minus) => true,
            Some(TokenKind::Not) => !self.attached(ahead + 1),
            _ => false,
        }
    }

    /// `term : [(NOT WS | MINUS)] simple`
    fn term(&mut self) -> Result<Expr, FilterError> {
        let Some(token) = self.peek() else {
            return Err(FilterError::syntax(
                self.end,
                "expected a restriction but the filter ends",
            ));
        };
        let position = token.position;
        match token.kind {
            TokenKind::Not => {
                if self.attached(1) {
                    let follows_name = self
                        .peek_at(1)
                        .is_some_and(|t| matches!(t.kind, TokenKind::LParen | TokenKind::Dot));
                    if follows_name {
                        return self.simple();
                    }
                    return Err(FilterError::syntax(
                        position,
                        "NOT must be followed by whitespace",
                    ));
                }
                if self.peek_at(1).is_none() {
                    return Err(FilterError::syntax(
                        position,
                        "NOT must be followed by a restriction",
                    ));
                }
                self.advance();
                self.negated(position)
            }
            TokenKind::Minus => {
                if !self.attached(1) {
                    return Err(FilterError::syntax(
                        position,
                        "'-' must be directly followed by the restriction it negates",
                    ));
                }
                self.advance();
                let operand = self.negated(position)?;
                match operand {
                    Expr::Not { operand, .. } => match *operand {
                        Expr::Global(Comparable::Member(Member { mut value, fields }))
                            if value.kind == ValueKind::Number && fields.is_empty() =>
                        {
                            value.text.insert(0, '-');
                            value.position = position;
                            Ok(Expr::Global(Comparable::Member(Member { value, fields })))
                        }
                        other => Ok(Expr::Not {
                            operand: Box::new(other),
                            position,
                        }),
                    },
                    other => Ok(other),
                }
            }
            _ => self.simple(),
        }
    }

    /// The operand of `NOT`/`-`, which may not itself start with a negation.
    fn negated(&mut self, position: Position) -> Result<Expr, FilterError> {
        if self.starts_negation(0) {
            return Err(FilterError::syntax(
                position,
                "a negation cannot directly follow another; use parentheses, e.g. NOT (NOT a)",
            ));
        }
        Ok(Expr::Not {
            operand: Box::new(self.simple()?),
            position,
        })
    }

    /// `simple : restriction | composite`
    fn simple(&mut self) -> Result<Expr, FilterError> {
        if self.peek().is_some_and(|t| t.kind == TokenKind::LParen) {
            let (expr, _) = self.composite()?;
            return Ok(expr);
        }
        self.restriction()
    }

    /// `composite : LPAREN expression RPAREN`; returns the expression and where the
    /// `(` is.
    fn composite(&mut self) -> Result<(Expr, Position), FilterError> {
        let Some(open) = self.advance() else {
            return Err(FilterError::syntax(self.end, "expected '('"));
        };
        self.enter(open.position)?;
        if self.peek().is_some_and(|t| t.kind == TokenKind::RParen) {
            return Err(FilterError::syntax(
                open.position,
                "empty parentheses: put an expression inside them",
            ));
        }
        let expr = self.expression()?;
        self.close_paren(open.position, "')'")?;
        self.depth -= 1;
        Ok((expr, open.position))
    }

    fn close_paren(&mut self, open: Position, expected: &str) -> Result<(), FilterError> {
        match self.advance() {
            Some(t) if t.kind == TokenKind::RParen => Ok(()),
            None => Err(FilterError::syntax(
                open,
                "unbalanced '(': the closing ')' is missing",
            )),
            Some(t) => Err(FilterError::syntax(
                t.position,
                format!("expected {expected}, found {}", t.kind.describe()),
            )),
        }
    }

    /// `restriction : comparable [comparator arg]`
    fn restriction(&mut self) -> Result<Expr, FilterError> {
        let comparable = self.comparable()?;
        let operator = self
            .peek()
            .and_then(|t| operator_of(&t.kind).map(|op| (op, t.position)));
        let Some((operator, operator_position)) = operator else {
            self.count_restriction(comparable.position())?;
            return Ok(Expr::Global(comparable));
        };
        self.advance();
        self.count_restriction(comparable.position())?;
        let arg = self.arg(operator, operator_position)?;
        Ok(Expr::Restriction(Restriction {
            comparable,
            operator,
            operator_position,
            arg,
        }))
    }

    /// `arg : comparable | composite`, plus a negative number (`a > -30`).
    fn arg(&mut self, operator: Operator, after: Position) -> Result<Arg, FilterError> {
        let Some(token) = self.peek() else {
            return Err(FilterError::syntax(
                after,
                format!("missing value after '{}'", operator.symbol()),
            ));
        };
        match token.kind {
            TokenKind::LParen => {
                let (expr, position) = self.composite()?;
                Ok(Arg::Composite {
                    expr: Box::new(expr),
                    position,
                })
            }
            TokenKind::Minus => {
                let position = token.position;
                let number_follows = self.attached(1)
                    && self
                        .peek_at(1)
                        .is_some_and(|t| matches!(t.kind, TokenKind::Number(_)));
                if !number_follows {
                    return Err(FilterError::syntax(
                        position,
                        "'-' in a value must be directly followed by digits; quote text values \
                         that start with '-'",
                    ));
                }
                self.advance();
                let mut value = self.head_value()?;
                value.text.insert(0, '-');
                value.position = position;
                let member = self.member_fields(value)?;
                Ok(Arg::Comparable(Comparable::Member(member)))
            }
            _ => Ok(Arg::Comparable(self.comparable()?)),
        }
    }

    /// The first value of a member, rebuilding `2.5`, `2.997e9` and `1.2s` from
    /// `NUMBER DOT NUMBER|TEXT`.
    fn head_value(&mut self) -> Result<Value, FilterError> {
        let Some(token) = self.advance() else {
            return Err(FilterError::syntax(
                self.end,
                "expected a field, value or function but the filter ends",
            ));
        };
        let (kind, text) = match token.kind {
            TokenKind::Text(text) => (ValueKind::Text, text),
            TokenKind::String(text) => (ValueKind::String, text),
            TokenKind::Number(mut text) => {
                let fraction = self.attached(0)
                    && self.peek().is_some_and(|t| t.kind == TokenKind::Dot)
                    && self.attached(1)
                    && self.peek_at(1).is_some_and(|t| match &t.kind {
                        TokenKind::Number(_) => true,
                        TokenKind::Text(s) => s.starts_with(|c: char| c.is_ascii_digit()),
                        _ => false,
                    });
                if fraction {
                    self.advance();
                    if let Some(Token {
                        kind: TokenKind::Number(rest) | TokenKind::Text(rest),
                        ..
                    }) = self.advance()
                    {
                        text.push('.');
                        text.push_str(&rest);
                    }
                }
                (ValueKind::Number, text)
            }
            TokenKind::And | TokenKind::Or => {
                let word = if token.kind == TokenKind::And {
                    "AND"
                } else {
                    "OR"
                };
                let message = if self.peek().is_some_and(|t| t.kind == TokenKind::LParen) {
                    format!("a function cannot be named {word}")
                } else {
                    format!("unexpected {word}: {word} must stand between two restrictions")
                };
                return Err(FilterError::syntax(token.position, message));
            }
            TokenKind::Not => (ValueKind::Text, "NOT".to_owned()),
            other => {
                return Err(FilterError::syntax(
                    token.position,
                    format!(
                        "expected a field, value or function, found {}",
                        other.describe()
                    ),
                ));
            }
        };
        Ok(Value {
            kind,
            text,
            position: token.position,
        })
    }

    /// `{DOT field}` after the first value.
    fn member_fields(&mut self, value: Value) -> Result<Member, FilterError> {
        let mut fields = Vec::new();
        while self.attached(0) && self.peek().is_some_and(|t| t.kind == TokenKind::Dot) {
            let Some(dot) = self.advance() else { break };
            let field = if self.attached(0) {
                self.advance()
            } else {
                None
            };
            let (kind, text, position) = match field {
                Some(Token {
                    kind: TokenKind::Text(text) | TokenKind::Number(text),
                    position,
                    ..
                }) => (ValueKind::Text, text, position),
                Some(Token {
                    kind: TokenKind::String(text),
                    position,
                    ..
                }) => (ValueKind::String, text, position),
                Some(Token {
                    kind: keyword @ (TokenKind::And | TokenKind::Or | TokenKind::Not),
                    position,
                    ..
                }) => {
                    let word = match keyword {
                        TokenKind::And => "AND",
                        TokenKind::Or => "OR",
                        _ => "NOT",
                    };
                    (ValueKind::Text, word.to_owned(), position)
                }
                _ => {
                    return Err(FilterError::syntax(
                        dot.position,
                        "expected a field name directly after '.'",
                    ));
                }
            };
            fields.push(Value {
                kind,
                text,
                position,
            });
        }
        Ok(Member { value, fields })
    }

    /// `comparable : member | function`
    fn comparable(&mut self) -> Result<Comparable, FilterError> {
        let value = self.head_value()?;
        let member = self.member_fields(value)?;
        let is_call = self.attached(0) && self.peek().is_some_and(|t| t.kind == TokenKind::LParen);
        if !is_call {
            if member.value.text == "NOT" && member.value.kind == ValueKind::Text {
                return Err(FilterError::syntax(
                    member.value.position,
                    "NOT must be followed by whitespace",
                ));
            }
            return Ok(Comparable::Member(member));
        }
        let position = member.value.position;
        let quoted = std::iter::once(&member.value)
            .chain(&member.fields)
            .find(|v| v.kind != ValueKind::Text);
        if let Some(bad) = quoted {
            return Err(FilterError::syntax(
                bad.position,
                "a function name must be unquoted text",
            ));
        }
        let name = member.dotted();
        if name == "AND" || name == "OR" {
            return Err(FilterError::syntax(
                position,
                format!("a function cannot be named {name}"),
            ));
        }
        let Some(open) = self.advance() else {
            return Err(FilterError::syntax(self.end, "expected '('"));
        };
        self.enter(open.position)?;
        let args = if name == "NOT" {
            self.not_call_argument(open.position)?
        } else {
            self.arg_list(open.position)?
        };
        self.depth -= 1;
        Ok(Comparable::Function(Function {
            name,
            position,
            args,
        }))
    }

    /// `NOT( expression )`: the argument of a call named NOT is a whole expression,
    /// so `NOT(a = 1)` works (Appendix B, \[ours\]).
    fn not_call_argument(&mut self, open: Position) -> Result<Vec<Arg>, FilterError> {
        if self.peek().is_some_and(|t| t.kind == TokenKind::RParen) {
            return Err(FilterError::syntax(
                open,
                "NOT(...) needs an expression inside the parentheses",
            ));
        }
        let expr = self.expression()?;
        if self.peek().is_some_and(|t| t.kind == TokenKind::Comma) {
            return Err(FilterError::syntax(
                open,
                "NOT(...) takes exactly one expression",
            ));
        }
        self.close_paren(open, "')'")?;
        Ok(vec![Arg::Composite {
            expr: Box::new(expr),
            position: open,
        }])
    }

    /// `[argList] RPAREN` after the `(` of a call.
    fn arg_list(&mut self, open: Position) -> Result<Vec<Arg>, FilterError> {
        let mut args = Vec::new();
        if self.peek().is_some_and(|t| t.kind == TokenKind::RParen) {
            self.advance();
            return Ok(args);
        }
        loop {
            let position = self.peek().map_or(self.end, |t| t.position);
            args.push(self.call_arg(position)?);
            match self.advance() {
                Some(t) if t.kind == TokenKind::RParen => return Ok(args),
                Some(t) if t.kind == TokenKind::Comma => {
                    if self.peek().is_some_and(|t| t.kind == TokenKind::RParen) {
                        return Err(FilterError::syntax(
                            t.position,
                            "expected an argument after ','",
                        ));
                    }
                }
                None => {
                    return Err(FilterError::syntax(
                        open,
                        "unbalanced '(': the call's closing ')' is missing",
                    ));
                }
                Some(t) => {
                    return Err(FilterError::syntax(
                        t.position,
                        format!(
                            "expected ',' or ')' in the argument list, found {}",
                            t.kind.describe()
                        ),
                    ));
                }
            }
        }
    }

    fn call_arg(&mut self, position: Position) -> Result<Arg, FilterError> {
        match self.peek().map(|t| &t.kind) {
            None => Err(FilterError::syntax(
                position,
                "unbalanced '(': the call's closing ')' is missing",
            )),
            Some(TokenKind::LParen | TokenKind::Minus) => self.arg(Operator::Equals, position),
            Some(_) => Ok(Arg::Comparable(self.comparable()?)),
        }
    }
}
