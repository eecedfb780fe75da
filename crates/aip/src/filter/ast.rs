//! The untyped syntax tree that [`parse`](super::parse) produces.
//!
//! It mirrors the grammar of Appendix A with parentheses made transparent: `(a OR b)`
//! becomes the `Or` node itself. Lists in `And`, `Sequence` and `Or` always hold at
//! least two operands (a single operand is returned as itself).
//!
//! `Display` renders a compact prefix form used in tests and logs, close to the
//! checklist's Appendix C: `AND(SEQ(a, b), c)`, `OR(x, y)`, `NOT(x)`,
//! `EQ(package, com.google)`, `HAS(file, ".java")`, `call regex(m.key, "x")`.
//! Strings are shown quoted, numbers and text as written.

use std::fmt;

use super::error::Position;

/// A node of the untyped filter tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `a AND b AND …` (lowest precedence).
    And(Vec<Expr>),
    /// `a b …`: factors separated by whitespace, an implicit (fuzzy) AND.
    Sequence(Vec<Expr>),
    /// `a OR b OR …` (binds tighter than AND and sequence).
    Or(Vec<Expr>),
    /// `NOT x` or `-x`.
    Not {
        /// The negated expression.
        operand: Box<Expr>,
        /// Where the `NOT` or `-` is.
        position: Position,
    },
    /// A comparable without a comparator: a bare value (global restriction,
    /// ) or a function call.
    Global(Comparable),
    /// `comparable comparator arg`.
    Restriction(Restriction),
}

/// `comparable comparator arg`, such as `state = ACTIVE`.
#[derive(Debug, Clone, PartialEq)]
pub struct Restriction {
    /// The left side, normally a field path.
    pub comparable: Comparable,
    /// The comparator.
    pub operator: Operator,
    /// Where the comparator is.
    pub operator_position: Position,
    /// The right side.
    pub arg: Arg,
}

/// The comparators of the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
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
    /// `:` (has)
    Has,
}

impl Operator {
    /// The operator as written in a filter.
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Equals => "=",
            Self::NotEquals => "!=",
            Self::LessThan => "<",
            Self::LessEquals => "<=",
            Self::GreaterThan => ">",
            Self::GreaterEquals => ">=",
            Self::Has => ":",
        }
    }

    fn prefix_name(self) -> &'static str {
        match self {
            Self::Equals => "EQ",
            Self::NotEquals => "NE",
            Self::LessThan => "LT",
            Self::LessEquals => "LE",
            Self::GreaterThan => "GT",
            Self::GreaterEquals => "GE",
            Self::Has => "HAS",
        }
    }
}

/// A member path or a function call.
#[derive(Debug, Clone, PartialEq)]
pub enum Comparable {
    /// `value {. field}`: a field path or a literal.
    Member(Member),
    /// `name {. name} ( args )`.
    Function(Function),
}

impl Comparable {
    /// Where the comparable starts.
    pub fn position(&self) -> Position {
        match self {
            Self::Member(m) => m.value.position,
            Self::Function(f) => f.position,
        }
    }
}

/// `value {. field}`, such as `labels.env`, `2.5` or `"hello"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The first value.
    pub value: Value,
    /// The values after each `.`.
    pub fields: Vec<Value>,
}

impl Member {
    /// The path as written, segments joined with `.` (strings without quotes).
    pub fn dotted(&self) -> String {
        let mut out = self.value.text.clone();
        for field in &self.fields {
            out.push('.');
            out.push_str(&field.text);
        }
        out
    }
}

/// One literal or name segment.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// How it was written.
    pub kind: ValueKind,
    /// The text: as written for TEXT and numbers, decoded for strings.
    pub text: String,
    /// Where it starts.
    pub position: Position,
}

/// How a [`Value`] was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// Unquoted text (also keywords used as field names, `a.AND`).
    Text,
    /// A quoted string.
    String,
    /// A number: digits, hex, or rebuilt from `NUMBER.NUMBER`/`NUMBER.TEXT` tokens
    /// (`2.5`, `2.997e9`, `1.2s`), possibly with a leading `-`.
    Number,
}

/// `name(args)`, with a possibly qualified name (`math.mem('30mb')`).
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// The name segments joined with `.`.
    pub name: String,
    /// Where the name starts.
    pub position: Position,
    /// The arguments.
    pub args: Vec<Arg>,
}

/// The right side of a restriction, or a function argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A member or a function call.
    Comparable(Comparable),
    /// A parenthesised expression.
    Composite {
        /// The expression inside the parentheses.
        expr: Box<Expr>,
        /// Where the `(` is.
        position: Position,
    },
}

fn write_list(f: &mut fmt::Formatter<'_>, name: &str, items: &[Expr]) -> fmt::Result {
    write!(f, "{name}(")?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    f.write_str(")")
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::And(items) => write_list(f, "AND", items),
            Self::Sequence(items) => write_list(f, "SEQ", items),
            Self::Or(items) => write_list(f, "OR", items),
            Self::Not { operand, .. } => write!(f, "NOT({operand})"),
            Self::Global(c) => write!(f, "{c}"),
            Self::Restriction(r) => write!(
                f,
                "{}({}, {})",
                r.operator.prefix_name(),
                r.comparable,
                r.arg
            ),
        }
    }
}

impl fmt::Display for Comparable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Member(m) => write!(f, "{m}"),
            Self::Function(func) => {
                write!(f, "call {}(", func.name)?;
                for (i, arg) in func.args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{arg}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Member {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)?;
        for field in &self.fields {
            write!(f, ".{field}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ValueKind::String => write!(f, "{:?}", self.text),
            ValueKind::Text | ValueKind::Number => f.write_str(&self.text),
        }
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Comparable(c) => write!(f, "{c}"),
            Self::Composite { expr, .. } => write!(f, "{expr}"),
        }
    }
}
