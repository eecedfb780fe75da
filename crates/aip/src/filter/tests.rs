//! Table-driven tests: Appendix B (lexer), Appendix C (parse trees and rejections),
//! and one table .x rule with valid and invalid rows.

use time::format_description::well_known::Rfc3339;

use super::lexer::{TokenKind, tokenize};
use super::*;

const STATES: &[&str] = &["STATE_UNSPECIFIED", "ACTIVE", "DELETED"];
const LEVELS: &[&str] = &["RISK_LEVEL_UNSPECIFIED", "LOW", "MEDIUM", "HIGH"];
const RISK_STATUSES: &[&str] = &["RISK_STATUS_UNSPECIFIED", "ACTIVE", "OUTDATED"];

/// An entity-like schema with one field of every type.
fn schema() -> FilterSchema {
    FilterSchema::new()
        .global_search_field("displayName")
        .field("msg", FieldType::String)
        .field("state", FieldType::Enum(STATES))
        .field("tags", FieldType::RepeatedString)
        .field("labels", FieldType::Map)
        .field("createTime", FieldType::Timestamp)
        .field("count", FieldType::Integer)
        .field("legalHold", FieldType::Bool)
        .field("riskDetails.riskLevel", FieldType::Enum(LEVELS))
        .field(
            "riskDetails.riskStatus",
            FieldType::EnumWithAliases(RISK_STATUSES, &[("RATED", "ACTIVE")]),
        )
        .field("riskDetails.riskScore", FieldType::Integer)
        .field("owner.id", FieldType::String)
        .function("nearDate", &[ParamType::Timestamp, ParamType::Integer])
        .function("hasRisk", &[ParamType::Enum(LEVELS)])
        .function("math.flag", &[ParamType::Bool, ParamType::String])
}

/// The same fields without a global-search field.
fn schema_without_global() -> FilterSchema {
    FilterSchema::new()
        .fuzzy_field("displayName")
        .field("state", FieldType::Enum(STATES))
}

fn literal(value: &Literal) -> String {
    match value {
        Literal::String(m) => string_match(m),
        Literal::Integer(i) => i.to_string(),
        Literal::Bool(b) => b.to_string(),
        Literal::Timestamp(t) => format!("@{}", t.format(&Rfc3339).unwrap()),
        Literal::Enum(e) => (*e).to_owned(),
    }
}

fn string_match(value: &StringMatch) -> String {
    match value {
        StringMatch::Exact(s) => format!("{s:?}"),
        StringMatch::Prefix(s) => format!("{s:?}*"),
        StringMatch::Suffix(s) => format!("*{s:?}"),
    }
}

fn op(c: Comparator) -> &'static str {
    match c {
        Comparator::Eq => "=",
        Comparator::Ne => "!=",
        Comparator::Lt => "<",
        Comparator::Le => "<=",
        Comparator::Gt => ">",
        Comparator::Ge => ">=",
    }
}

/// A compact rendering of a checked condition for the tables.
fn show(c: &Condition) -> String {
    let list = |name: &str, items: &[Condition]| {
        let inner: Vec<String> = items.iter().map(show).collect();
        format!("{name}({})", inner.join(", "))
    };
    match c {
        Condition::And(items) => list("AND", items),
        Condition::Or(items) => list("OR", items),
        Condition::Not(inner) => format!("NOT({})", show(inner)),
        Condition::Compare {
            field,
            op: o,
            value,
        } => {
            format!("{field} {} {}", op(*o), literal(value))
        }
        Condition::Contains { field, value } => {
            format!("{field} CONTAINS {}", string_match(value))
        }
        Condition::HasKey { field, key } => format!("{field} HASKEY {key:?}"),
        Condition::MapValue {
            field,
            key,
            op: o,
            value,
        } => format!("{field}[{key:?}] {} {}", op(*o), string_match(value)),
        Condition::Present { field } => format!("PRESENT({field})"),
        Condition::Fuzzy { field, text } => format!("FUZZY({field}, {text:?})"),
        Condition::Call { function, args } => {
            let inner: Vec<String> = args.iter().map(literal).collect();
            format!("{function}({})", inner.join(", "))
        }
    }
}

fn parsed(input: &str) -> String {
    match parse(input) {
        Ok(Some(expr)) => expr.to_string(),
        Ok(None) => "<none>".to_owned(),
        Err(e) => panic!("{input:?} should parse: {e}"),
    }
}

fn check_ok(schema: &FilterSchema, rows: &[(&str, &str)]) {
    for (input, want) in rows {
        let got = match parse_and_check(input, schema) {
            Ok(Some(c)) => show(&c),
            Ok(None) => "<none>".to_owned(),
            Err(e) => panic!("{input:?} should be valid, got {e} ({:?})", e.kind()),
        };
        assert_eq!(&got, want, "filter {input:?}");
    }
}

fn check_err(schema: &FilterSchema, rows: &[(&str, FilterErrorKind)]) {
    for (input, kind) in rows {
        match parse_and_check(input, schema) {
            Ok(c) => panic!("{input:?} should be rejected, got {c:?}"),
            Err(e) => {
                assert_eq!(e.kind(), *kind, "filter {input:?}: {e}");
                assert!(!e.message().is_empty());
                assert_eq!(e.reason(), kind.reason());
            }
        }
    }
}

// ---------------------------------------------------------------- Appendix B: lexer

#[test]
fn lexer_tokens() {
    use TokenKind as T;
    let n = |s: &str| T::Number(s.to_owned());
    let t = |s: &str| T::Text(s.to_owned());
    let s = |v: &str| T::String(v.to_owned());
    let cases: Vec<(&str, Vec<TokenKind>)> = vec![
        ("2.5", vec![n("2"), T::Dot, n("5")]),
        ("1.2s", vec![n("1"), T::Dot, t("2s")]),
        ("2.997e9", vec![n("2"), T::Dot, t("997e9")]),
        ("0x1F", vec![n("0x1F")]),
        ("0x", vec![t("0x")]),
        ("0xZZ", vec![t("0xZZ")]),
        ("a<=b", vec![t("a"), T::LessEquals, t("b")]),
        ("a<b", vec![t("a"), T::LessThan, t("b")]),
        ("a>=b", vec![t("a"), T::GreaterEquals, t("b")]),
        ("a>b", vec![t("a"), T::GreaterThan, t("b")]),
        ("a!=b", vec![t("a"), T::NotEquals, t("b")]),
        ("a=b", vec![t("a"), T::Equals, t("b")]),
        ("a:b", vec![t("a"), T::Has, t("b")]),
        (
            "f(a,b)",
            vec![t("f"), T::LParen, t("a"), T::Comma, t("b"), T::RParen],
        ),
        ("-a", vec![T::Minus, t("a")]),
        ("foo-bar", vec![t("foo"), T::Minus, t("bar")]),
        ("AND OR NOT", vec![T::And, T::Or, T::Not]),
        ("and or not", vec![t("and"), t("or"), t("not")]),
        ("ANDx NOTa xOR", vec![t("ANDx"), t("NOTa"), t("xOR")]),
        ("NOT(", vec![T::Not, T::LParen]),
        ("ab\"c", vec![t("ab\"c")]),
        ("tags[0]", vec![t("tags[0]")]),
        ("*", vec![t("*")]),
        ("héllo", vec![t("héllo")]),
        ("\"a\\\"b\"", vec![s("a\"b")]),
        ("'it\\'s'", vec![s("it's")]),
        ("'say \"hi\"'", vec![s("say \"hi\"")]),
        ("\"\\\\\\?\\`\"", vec![s("\\?`")]),
        ("\"\\x41\\101\\u00e9\\U0001F600\"", vec![s("AAé😀")]),
        ("\"\"", vec![s("")]),
        ("\"a b.c:d\"", vec![s("a b.c:d")]),
    ];
    for (input, want) in cases {
        let got: Vec<TokenKind> = tokenize(input)
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect();
        assert_eq!(got, want, "input {input:?}");
    }
}

#[test]
fn lexer_positions_and_whitespace() {
    let tokens = tokenize("a\n  b = 'é' c").unwrap();
    let summary: Vec<(usize, usize, usize, bool)> = tokens
        .iter()
        .map(|t| {
            (
                t.position.offset,
                t.position.line,
                t.position.column,
                t.space_before,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (0, 1, 1, false),
            (4, 2, 3, true),
            (6, 2, 5, true),
            (8, 2, 7, true),
            (13, 2, 11, true),
        ]
    );
    assert_eq!(tokens[3].end, 12);
    // Unicode whitespace (ideographic space, no-break space) separates tokens.
    let kinds: Vec<TokenKind> = tokenize("a\u{3000}b\u{a0}c")
        .unwrap()
        .into_iter()
        .map(|t| t.kind)
        .collect();
    assert_eq!(kinds.len(), 3);
    assert!(tokenize(" \t\r\n ").unwrap().is_empty());
}

#[test]
fn literals_refuse_control_characters() {
    let cases = [
        ("\"a\u{0}b\"", 2),
        ("\"a\\x00b\"", 2),
        ("\"a\\u0000b\"", 2),
        ("\"a\\000b\"", 2),
        ("x = 'a\tb'", 6),
        ("\"\\n\"", 1),
        ("\"\\t\"", 1),
        ("\"\\r\"", 1),
        ("\"\\a\\b\\f\\v\"", 1),
        ("\"\u{85}\"", 1),
        ("\"\\u009f\"", 1),
        ("tags:a\u{1b}b", 6),
        ("a\u{7f}", 1),
        ("a\u{0}", 1),
    ];
    for (input, offset) in cases {
        let err = tokenize(input).unwrap_err();
        assert_eq!(err.kind(), FilterErrorKind::ControlCharacter, "{input:?}");
        assert_eq!(err.reason(), "CONTROL_CHARACTER");
        assert_eq!(err.position().offset, offset, "{input:?}: {err}");
    }
    // Between tokens, TAB, LF and CR are whitespace.
    assert_eq!(tokenize("a\t=\r\n'b'").unwrap().len(), 3);
}

#[test]
fn lexer_errors() {
    let cases = [
        ("\"unterminated", 0),
        ("a = 'open", 4),
        ("\"\\q\"", 1),
        ("\"\\x4\"", 1),
        ("\"\\u12\"", 1),
        ("\"\\uD800\"", 1),
        ("\"\\400\"", 1),
        ("\"abc\\", 4),
        ("a ! b", 2),
        ("a !b", 2),
    ];
    for (input, offset) in cases {
        let err = tokenize(input).unwrap_err();
        assert_eq!(err.kind(), FilterErrorKind::Syntax, "{input:?}");
        assert_eq!(err.position().offset, offset, "{input:?}: {err}");
    }
}

// ------------------------------------------------------ Appendix C: parse trees

#[test]
fn appendix_c_parse_trees() {
    let cases = [
        ("", "<none>"),
        ("   ", "<none>"),
        ("\t\n", "<none>"),
        (
            "New York Giants OR Yankees",
            "SEQ(New, York, OR(Giants, Yankees))",
        ),
        (
            "New York (Giants OR Yankees)",
            "SEQ(New, York, OR(Giants, Yankees))",
        ),
        ("a b AND c AND d", "AND(SEQ(a, b), c, d)"),
        ("a AND b OR c", "AND(a, OR(b, c))"),
        ("a < 10 OR a >= 100", "OR(LT(a, 10), GE(a, 100))"),
        ("a OR b OR c", "OR(a, b, c)"),
        ("NOT (a OR b)", "NOT(OR(a, b))"),
        ("-file:\".java\"", "NOT(HAS(file, \".java\"))"),
        ("-30", "-30"),
        ("msg != 'hello'", "NE(msg, \"hello\")"),
        ("msg != \"hello\"", "NE(msg, \"hello\")"),
        ("package=com.google", "EQ(package, com.google)"),
        ("expr.type_map.1.type", "expr.type_map.1.type"),
        (
            "regex(m.key, '^.*prod.*$')",
            "call regex(m.key, \"^.*prod.*$\")",
        ),
        ("NOT(a)", "call NOT(a)"),
        ("math.mem('30mb')", "call math.mem(\"30mb\")"),
        (
            "experiment.rollout <= cohort(request.user)",
            "LE(experiment.rollout, call cohort(request.user))",
        ),
        (
            "(msg.endsWith('world') AND retries < 10)",
            "AND(call msg.endsWith(\"world\"), LT(retries, 10))",
        ),
        ("labels:env", "HAS(labels, env)"),
        ("labels.env:*", "HAS(labels.env, *)"),
        ("labels.env:prod", "HAS(labels.env, prod)"),
        ("tags:red", "HAS(tags, red)"),
        ("tags:*", "HAS(tags, *)"),
        ("display_name = \"web-*\"", "EQ(display_name, \"web-*\")"),
        ("display_name = \"*.prod\"", "EQ(display_name, \"*.prod\")"),
        (
            "create_time > \"2026-01-01T00:00:00Z\"",
            "GT(create_time, \"2026-01-01T00:00:00Z\")",
        ),
        (
            "state = ACTIVE AND NOT labels:tmp",
            "AND(EQ(state, ACTIVE), NOT(HAS(labels, tmp)))",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(parsed(input), want, "filter {input:?}");
    }
}

#[test]
fn parse_trees_beyond_appendix_c() {
    let cases = [
        // Appendix B hazards.
        ("-2.5 >= -2.4", "NOT(GE(2.5, -2.4))"),
        ("a > -30", "GT(a, -30)"),
        ("a = 2.5", "EQ(a, 2.5)"),
        ("x = 1.2s", "EQ(x, 1.2s)"),
        ("a = 2.997e9", "EQ(a, 2.997e9)"),
        ("-2.5", "-2.5"),
        ("-a", "NOT(a)"),
        ("a and b", "SEQ(a, and, b)"),
        ("NOTa", "NOTa"),
        ("a = 0x1F", "EQ(a, 0x1F)"),
        // Restrictions are not whitespace-sensitive.
        ("a=1", "EQ(a, 1)"),
        ("a = 1", "EQ(a, 1)"),
        ("a =1", "EQ(a, 1)"),
        ("a= 1", "EQ(a, 1)"),
        (
            "a<=1 b>=2 c<3 d>4 e!=5 f:6",
            "SEQ(LE(a, 1), GE(b, 2), LT(c, 3), GT(d, 4), NE(e, 5), HAS(f, 6))",
        ),
        // Grouping and nesting.
        ("( a )", "a"),
        ("((a))", "a"),
        ("(a AND b) AND c", "AND(AND(a, b), c)"),
        ("a OR (b AND c)", "OR(a, AND(b, c))"),
        ("a OR -b", "OR(a, NOT(b))"),
        ("NOT a b", "SEQ(NOT(a), b)"),
        ("NOT NOT(a)", "NOT(call NOT(a))"),
        ("NOT(a = 1 OR b)", "call NOT(OR(EQ(a, 1), b))"),
        ("  a  \n AND\tb  ", "AND(a, b)"),
        // Keywords as field names, functions.
        ("a.AND = 1", "EQ(a.AND, 1)"),
        ("a.NOT.OR:x", "HAS(a.NOT.OR, x)"),
        ("f()", "call f()"),
        (
            "f( a , 'b' , -1 , (c OR d) )",
            "call f(a, \"b\", -1, OR(c, d))",
        ),
        ("f(g(x))", "call f(call g(x))"),
        ("NOT.ns.f(x)", "call NOT.ns.f(x)"),
        ("foo (a)", "SEQ(foo, a)"),
        // Composite argument of a comparator.
        (
            "state = (ACTIVE OR DELETED)",
            "EQ(state, OR(ACTIVE, DELETED))",
        ),
        // Quoted map keys and strings with special characters.
        ("labels.\"my key\":*", "HAS(labels.\"my key\", *)"),
        ("a = \"x AND y\"", "EQ(a, \"x AND y\")"),
        ("tags[0] = \"x\"", "EQ(tags[0], \"x\")"),
    ];
    for (input, want) in cases {
        assert_eq!(parsed(input), want, "filter {input:?}");
    }
}

#[test]
fn appendix_c_rejected_syntax() {
    // (filter, byte offset of the reported position)
    let cases = [
        ("a AND", 2),
        ("AND a", 0),
        ("(a = 1", 0),
        ("a = 1)", 5),
        ("a =", 2),
        ("\"unterminated", 0),
        ("create_time > 2026-01-01T00:00:00Z", 18),
        ("a OR", 2),
        ("OR a", 0),
        ("NOT", 0),
        ("NOT ", 0),
        ("NOT NOT a", 0),
        ("--a", 0),
        ("NOT -a", 0),
        ("- a", 0),
        ("a AND(b)", 2),
        ("AND(a)", 0),
        ("OR(a)", 0),
        ("a OR(b)", 2),
        ("()", 0),
        ("f(a,)", 3),
        ("f(a", 1),
        ("f(a b)", 4),
        ("a . b", 2),
        ("a.", 1),
        ("a = -x", 4),
        ("a > - 30", 4),
        ("NOT(a, b)", 3),
        ("NOT()", 3),
        ("(a)AND b", 3),
        ("a OR b)", 6),
        ("a = 1 = 2", 6),
        ("\"foo\"(x)", 0),
        ("a ,b", 2),
        ("a AND ", 2),
        ("a AND AND b", 6),
        ("(a OR) b", 3),
        ("f(,)", 2),
        ("a = )", 4),
    ];
    for (input, offset) in cases {
        let err = parse(input).expect_err(input);
        assert_eq!(err.kind(), FilterErrorKind::Syntax, "{input:?}: {err}");
        assert_eq!(err.reason(), "INVALID_FILTER_SYNTAX");
        assert_eq!(err.position().offset, offset, "{input:?}: {err}");
    }
}

#[test]
fn error_positions_have_line_and_column() {
    let err = parse_and_check("state = ACTIVE\nAND colour = 1", &schema()).unwrap_err();
    assert_eq!(err.kind(), FilterErrorKind::UnknownField);
    assert_eq!(
        err.position(),
        Position {
            offset: 19,
            line: 2,
            column: 5
        }
    );
    assert_eq!(err.subject(), Some("colour"));
    assert_eq!(
        err.to_string(),
        "unknown field 'colour' (at line 2, column 5)"
    );
    let err = parse("é = )").unwrap_err();
    assert_eq!((err.position().offset, err.position().column), (5, 5));
}

// ------------------------------------------------------ Appendix C: checked meaning

#[test]
fn appendix_c_checked() {
    check_ok(
        &schema(),
        &[
            ("", "<none>"),
            ("labels:env", "labels HASKEY \"env\""),
            ("labels.env:*", "labels HASKEY \"env\""),
            ("labels.env:prod", "labels[\"env\"] = \"prod\""),
            ("tags:red", "tags CONTAINS \"red\""),
            ("tags:*", "PRESENT(tags)"),
            ("display_name = \"web-*\"", "displayName = \"web-\"*"),
            ("display_name = \"*.prod\"", "displayName = *\".prod\""),
            (
                "create_time > \"2026-01-01T00:00:00Z\"",
                "createTime > @2026-01-01T00:00:00Z",
            ),
            (
                "state = ACTIVE AND NOT labels:tmp",
                "AND(state = ACTIVE, NOT(labels HASKEY \"tmp\"))",
            ),
            ("NOT(state = ACTIVE)", "NOT(state = ACTIVE)"),
            ("NOT(tags:red)", "NOT(tags CONTAINS \"red\")"),
            ("-30", "FUZZY(displayName, \"-30\")"),
            (
                "New York (Giants OR Yankees)",
                "AND(FUZZY(displayName, \"New\"), FUZZY(displayName, \"York\"), \
                 OR(FUZZY(displayName, \"Giants\"), FUZZY(displayName, \"Yankees\")))",
            ),
            ("msg != 'hello'", "msg != \"hello\""),
        ],
    );
}

#[test]
fn appendix_c_rejected_by_schema() {
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("tags.0 = \"x\"", K::InvalidTraversal),
            ("tags[0] = \"x\"", K::InvalidTraversal),
            ("colour = \"red\"", K::UnknownField),
            ("state = SLEEPING", K::InvalidValue),
            ("state > ACTIVE", K::UnsupportedOperator),
            ("create_time > 2026-01-01T00:00:00Z", K::Syntax),
            ("create_time > \"yesterday\"", K::InvalidValue),
            ("count = hello", K::TypeMismatch),
            ("nosuchfn(x)", K::UnknownFunction),
            ("a AND", K::Syntax),
            ("(a = 1", K::Syntax),
            ("a =", K::Syntax),
            ("\"unterminated", K::Syntax),
        ],
    );
}

// ------------------------------------------------------------- one table per rule

#[test]
fn r160_1_single_filter_string_is_checked() {
    let condition = parse_and_check("state = ACTIVE", &schema()).unwrap();
    assert_eq!(
        condition,
        Some(Condition::Compare {
            field: "state",
            op: Comparator::Eq,
            value: Literal::Enum("ACTIVE"),
        })
    );
    let expr = parse("state = ACTIVE").unwrap().unwrap();
    assert_eq!(check(&expr, &schema()).unwrap(), condition.unwrap());
}

#[test]
fn r160_2_empty_filter() {
    for input in ["", " ", "\n\t ", "\u{3000}"] {
        assert_eq!(parse(input).unwrap(), None, "{input:?}");
        assert_eq!(parse_and_check(input, &schema()).unwrap(), None);
    }
    check_err(&schema(), &[("()", FilterErrorKind::Syntax)]);
}

#[test]
fn r160_3_and_or_precedence_and_case() {
    check_ok(
        &schema(),
        &[
            (
                "state = ACTIVE AND tags:a OR tags:b",
                "AND(state = ACTIVE, OR(tags CONTAINS \"a\", tags CONTAINS \"b\"))",
            ),
            (
                "(state = ACTIVE AND tags:a) OR tags:b",
                "OR(AND(state = ACTIVE, tags CONTAINS \"a\"), tags CONTAINS \"b\")",
            ),
            (
                "tags:a tags:b AND tags:c",
                "AND(tags CONTAINS \"a\", tags CONTAINS \"b\", tags CONTAINS \"c\")",
            ),
            (
                "state = ACTIVE AND (tags:a AND tags:b)",
                "AND(state = ACTIVE, tags CONTAINS \"a\", tags CONTAINS \"b\")",
            ),
            (
                "tags:a OR (tags:b OR tags:c)",
                "OR(tags CONTAINS \"a\", tags CONTAINS \"b\", tags CONTAINS \"c\")",
            ),
            // Lower-case keywords are plain text (global restrictions).
            (
                "Victor and Hugo",
                "AND(FUZZY(displayName, \"Victor\"), FUZZY(displayName, \"and\"), \
                 FUZZY(displayName, \"Hugo\"))",
            ),
        ],
    );
    check_err(
        &schema(),
        &[
            ("state = ACTIVE AND", FilterErrorKind::Syntax),
            ("OR tags:a", FilterErrorKind::Syntax),
            ("tags:a AND(tags:b)", FilterErrorKind::Syntax),
        ],
    );
}

#[test]
fn r160_4_not_and_minus_are_the_same() {
    let schema = schema();
    let with_not = parse_and_check("NOT labels.env:prod", &schema).unwrap();
    let with_minus = parse_and_check("-labels.env:prod", &schema).unwrap();
    let with_call = parse_and_check("NOT(labels.env:prod)", &schema).unwrap();
    assert_eq!(with_not, with_minus);
    assert_eq!(with_not, with_call);
    check_ok(
        &schema,
        &[
            ("-labels.env:prod", "NOT(labels[\"env\"] = \"prod\")"),
            (
                "NOT (tags:a OR tags:b)",
                "NOT(OR(tags CONTAINS \"a\", tags CONTAINS \"b\"))",
            ),
            ("-(tags:a)", "NOT(tags CONTAINS \"a\")"),
            ("NOT NOT(tags:a)", "NOT(NOT(tags CONTAINS \"a\"))"),
        ],
    );
    check_err(
        &schema,
        &[
            ("NOT", FilterErrorKind::Syntax),
            ("NOTtags:a", FilterErrorKind::UnknownField),
            ("- tags:a", FilterErrorKind::Syntax),
            ("NOT NOT tags:a", FilterErrorKind::Syntax),
        ],
    );
}

#[test]
fn r160_5_operators_by_type() {
    check_ok(
        &schema(),
        &[
            ("msg = x", "msg = \"x\""),
            ("msg != x", "msg != \"x\""),
            ("msg < \"m\"", "msg < \"m\""),
            ("msg <= \"m\"", "msg <= \"m\""),
            ("msg > \"m\"", "msg > \"m\""),
            ("msg >= \"m\"", "msg >= \"m\""),
            ("count = 1", "count = 1"),
            ("count != 1", "count != 1"),
            ("count < 1", "count < 1"),
            ("count <= 1", "count <= 1"),
            ("count > 1", "count > 1"),
            ("count >= 1", "count >= 1"),
            (
                "createTime <= \"2026-01-01T00:00:00Z\"",
                "createTime <= @2026-01-01T00:00:00Z",
            ),
            (
                "createTime != \"2026-01-01T00:00:00Z\"",
                "createTime != @2026-01-01T00:00:00Z",
            ),
            ("legalHold = true", "legalHold = true"),
            ("legalHold != false", "legalHold != false"),
            ("state = ACTIVE", "state = ACTIVE"),
            ("state != DELETED", "state != DELETED"),
            (
                "riskDetails.riskLevel = HIGH",
                "riskDetails.riskLevel = HIGH",
            ),
        ],
    );
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("legalHold < true", K::UnsupportedOperator),
            ("legalHold <= true", K::UnsupportedOperator),
            ("legalHold > false", K::UnsupportedOperator),
            ("legalHold >= false", K::UnsupportedOperator),
            ("state < ACTIVE", K::UnsupportedOperator),
            ("state <= ACTIVE", K::UnsupportedOperator),
            ("state > ACTIVE", K::UnsupportedOperator),
            ("state >= ACTIVE", K::UnsupportedOperator),
            ("riskDetails.riskLevel > LOW", K::UnsupportedOperator),
        ],
    );
}

#[test]
fn r160_6_field_on_the_left_literal_on_the_right() {
    check_ok(
        &schema(),
        &[
            ("msg = \"foo\"", "msg = \"foo\""),
            ("msg = state", "msg = \"state\""),
            (
                "state = (ACTIVE OR DELETED)",
                "OR(state = ACTIVE, state = DELETED)",
            ),
            (
                "state != (ACTIVE DELETED)",
                "AND(state != ACTIVE, state != DELETED)",
            ),
            (
                "tags:(a OR -b)",
                "OR(tags CONTAINS \"a\", NOT(tags CONTAINS \"b\"))",
            ),
        ],
    );
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("\"foo\" = msg", K::InvalidComparison),
            ("'foo' = msg", K::InvalidComparison),
            ("42 = count", K::InvalidComparison),
            ("-1 < count", K::InvalidComparison),
            ("msg = foo.bar", K::InvalidComparison),
            ("msg = f(x)", K::InvalidComparison),
            ("hasRisk(HIGH) = true", K::InvalidComparison),
            ("state = (ACTIVE OR msg = x)", K::InvalidComparison),
            ("state = (hasRisk(HIGH))", K::InvalidComparison),
        ],
    );
}

#[test]
fn r160_7_literal_conversion() {
    check_ok(
        &schema(),
        &[
            ("state = ACTIVE", "state = ACTIVE"),
            ("state = \"ACTIVE\"", "state = ACTIVE"),
            ("legalHold = true", "legalHold = true"),
            ("count = 42", "count = 42"),
            ("count = -7", "count = -7"),
            ("count > -30", "count > -30"),
            ("count = 0x1F", "count = 31"),
            ("count = 9223372036854775807", "count = 9223372036854775807"),
            (
                "count = -9223372036854775808",
                "count = -9223372036854775808",
            ),
            (
                "createTime > \"2026-01-01T00:00:00Z\"",
                "createTime > @2026-01-01T00:00:00Z",
            ),
            (
                "createTime > \"2026-01-01T02:30:00+02:30\"",
                "createTime > @2026-01-01T00:00:00Z",
            ),
            (
                "createTime > \"2026-01-01T00:00:00.5Z\"",
                "createTime > @2026-01-01T00:00:00.5Z",
            ),
            ("msg = 42", "msg = \"42\""),
            ("msg = true", "msg = \"true\""),
        ],
    );
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("state = active", K::InvalidValue),
            ("state = Active", K::InvalidValue),
            ("state = 1", K::TypeMismatch),
            ("legalHold = yes", K::TypeMismatch),
            ("legalHold = TRUE", K::TypeMismatch),
            ("legalHold = \"true\"", K::TypeMismatch),
            ("legalHold = 1", K::TypeMismatch),
            ("count = hello", K::TypeMismatch),
            ("count = 2.5", K::TypeMismatch),
            ("count = 2.997e9", K::TypeMismatch),
            ("count = 1e5", K::TypeMismatch),
            ("count = \"42\"", K::TypeMismatch),
            ("count = 9223372036854775808", K::InvalidValue),
            ("createTime > \"yesterday\"", K::InvalidValue),
            ("createTime > \"2026-01-01T00:00:00\"", K::InvalidValue),
            ("createTime > \"2026-01-01\"", K::InvalidValue),
            ("createTime > 5", K::TypeMismatch),
            ("createTime > now", K::TypeMismatch),
            ("createTime > 2026-01-01T00:00:00Z", K::Syntax),
        ],
    );
}

#[test]
fn r160_8_wildcards_only_at_the_ends_of_quoted_strings() {
    check_ok(
        &schema(),
        &[
            ("displayName = \"web-*\"", "displayName = \"web-\"*"),
            ("displayName = \"*.prod\"", "displayName = *\".prod\""),
            ("displayName != \"web-*\"", "displayName != \"web-\"*"),
            ("displayName = \"a*b\"", "displayName = \"a*b\""),
            ("displayName = \"*\"", "displayName = \"\"*"),
            ("msg:\"he*\"", "msg = \"he\"*"),
            ("tags:\"re*\"", "tags CONTAINS \"re\"*"),
            ("labels.env = \"pr*\"", "labels[\"env\"] = \"pr\"*"),
            ("labels.env:\"*od\"", "labels[\"env\"] = *\"od\""),
        ],
    );
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("displayName = web*", K::InvalidValue),
            ("displayName = *", K::InvalidValue),
            ("displayName = \"*web*\"", K::InvalidValue),
            ("displayName > \"a*\"", K::InvalidValue),
            ("labels.env < \"a*\"", K::InvalidValue),
            ("tags:re*", K::InvalidValue),
            ("labels:\"e*\"", K::InvalidValue),
            ("displayName:\"jo*\"", K::InvalidValue),
            ("\"web*\"", K::InvalidValue),
        ],
    );
}

#[test]
fn r160_9_traversal_and_both_spellings() {
    check_ok(
        &schema(),
        &[
            ("labels.env = \"prod\"", "labels[\"env\"] = \"prod\""),
            ("riskDetails.riskScore > 50", "riskDetails.riskScore > 50"),
            ("risk_details.risk_score > 50", "riskDetails.riskScore > 50"),
            (
                "riskDetails.risk_level = LOW",
                "riskDetails.riskLevel = LOW",
            ),
            (
                "create_time > \"2026-01-01T00:00:00Z\"",
                "createTime > @2026-01-01T00:00:00Z",
            ),
            ("legal_hold = true", "legalHold = true"),
            ("owner.id = \"x\"", "owner.id = \"x\""),
        ],
    );
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("CreateTime > \"2026-01-01T00:00:00Z\"", K::UnknownField),
            ("createtime > \"2026-01-01T00:00:00Z\"", K::UnknownField),
            ("create-time = 1", K::Syntax),
            ("riskDetails.\"riskLevel\" = LOW", K::UnknownField),
        ],
    );
}

#[test]
fn r160_10_unknown_fields() {
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("colour = \"red\"", K::UnknownField),
            ("riskDetails.nope = 1", K::UnknownField),
            ("owner.name = \"x\"", K::UnknownField),
            ("nope:*", K::UnknownField),
            ("displayName.first = x", K::InvalidTraversal),
            ("count.value = 1", K::InvalidTraversal),
            ("labels.env.x = 1", K::InvalidTraversal),
            ("riskDetails.riskLevel.x = LOW", K::InvalidTraversal),
        ],
    );
    // Map keys need not exist: any key is accepted (a missing key never matches).
    check_ok(
        &schema(),
        &[("labels.anything = \"x\"", "labels[\"anything\"] = \"x\"")],
    );
    let err = parse_and_check("riskDetails.nope = 1", &schema()).unwrap_err();
    assert_eq!(err.subject(), Some("riskDetails.nope"));
    assert_eq!(err.position().offset, 12);
}

#[test]
fn r160_11_nested_fields_keep_their_full_path() {
    // Storage makes these false when `owner` is unset, even for `!=` (documented on
    // Condition); the checker keeps the full declared path so it can.
    check_ok(
        &schema(),
        &[
            ("owner.id != \"x\"", "owner.id != \"x\""),
            ("NOT owner.id = \"x\"", "NOT(owner.id = \"x\")"),
            ("owner:*", "PRESENT(owner)"),
        ],
    );
}

#[test]
fn r160_12_no_traversal_through_repeated_fields() {
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("tags.0 = \"x\"", K::InvalidTraversal),
            ("tags[0] = \"x\"", K::InvalidTraversal),
            ("tags.first:x", K::InvalidTraversal),
            ("tags.0:*", K::InvalidTraversal),
        ],
    );
    check_ok(&schema(), &[("tags:x", "tags CONTAINS \"x\"")]);
}

#[test]
fn r160_13_has_operator() {
    check_ok(
        &schema(),
        &[
            ("tags:red", "tags CONTAINS \"red\""),
            ("tags:\"dark red\"", "tags CONTAINS \"dark red\""),
            ("labels:env", "labels HASKEY \"env\""),
            ("labels:\"my key\"", "labels HASKEY \"my key\""),
            ("labels.env:*", "labels HASKEY \"env\""),
            ("labels.\"my key\":*", "labels HASKEY \"my key\""),
            ("labels.env:prod", "labels[\"env\"] = \"prod\""),
            ("labels.env != prod", "labels[\"env\"] != \"prod\""),
            ("labels.env > \"a\"", "labels[\"env\"] > \"a\""),
            ("tags:*", "PRESENT(tags)"),
            ("labels:*", "PRESENT(labels)"),
            ("owner:*", "PRESENT(owner)"),
            ("riskDetails:*", "PRESENT(riskDetails)"),
            ("risk_details:*", "PRESENT(riskDetails)"),
            ("msg:*", "PRESENT(msg)"),
            ("count:*", "PRESENT(count)"),
            ("riskDetails.riskLevel:*", "PRESENT(riskDetails.riskLevel)"),
            ("count:3", "count = 3"),
            ("state:ACTIVE", "state = ACTIVE"),
            ("legalHold:true", "legalHold = true"),
            ("msg:hello", "msg = \"hello\""),
        ],
    );
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("tags = red", K::UnsupportedOperator),
            ("tags != red", K::UnsupportedOperator),
            ("tags > red", K::UnsupportedOperator),
            ("labels = env", K::UnsupportedOperator),
            ("labels:env.x", K::InvalidComparison),
            ("riskDetails = x", K::UnsupportedOperator),
            ("riskDetails:x", K::UnsupportedOperator),
            ("owner != \"x\"", K::UnsupportedOperator),
        ],
    );
}

#[test]
fn r160_14_global_restrictions() {
    check_ok(
        &schema(),
        &[
            ("Hugo", "FUZZY(displayName, \"Hugo\")"),
            (
                "Victor Hugo",
                "AND(FUZZY(displayName, \"Victor\"), FUZZY(displayName, \"Hugo\"))",
            ),
            ("\"Victor Hugo\"", "FUZZY(displayName, \"Victor Hugo\")"),
            (
                "displayName:\"jon smith\"",
                "FUZZY(displayName, \"jon smith\")",
            ),
            ("displayName:jon", "FUZZY(displayName, \"jon\")"),
            ("displayName = jon", "displayName = \"jon\""),
            ("displayName:*", "PRESENT(displayName)"),
            (
                "Hugo AND state = ACTIVE",
                "AND(FUZZY(displayName, \"Hugo\"), state = ACTIVE)",
            ),
        ],
    );
    let two = FilterSchema::new()
        .global_search_field("displayName")
        .global_search_field("legalName");
    check_ok(
        &two,
        &[(
            "Hugo",
            "OR(FUZZY(displayName, \"Hugo\"), FUZZY(legalName, \"Hugo\"))",
        )],
    );
    // Re-declaring a global field with another type removes it from global search.
    let redeclared = FilterSchema::new()
        .global_search_field("displayName")
        .field("displayName", FieldType::String);
    check_err(
        &redeclared,
        &[("Hugo", FilterErrorKind::GlobalRestrictionUnsupported)],
    );
    use FilterErrorKind as K;
    check_err(
        &schema_without_global(),
        &[
            ("Hugo", K::GlobalRestrictionUnsupported),
            ("\"Victor Hugo\"", K::GlobalRestrictionUnsupported),
            ("-30", K::GlobalRestrictionUnsupported),
        ],
    );
    check_ok(
        &schema_without_global(),
        &[(
            "displayName:\"kyc reveiw\"",
            "FUZZY(displayName, \"kyc reveiw\")",
        )],
    );
    check_err(
        &schema(),
        &[
            ("\"\"", K::InvalidValue),
            ("displayName:\"\"", K::InvalidValue),
            ("displayName:\"  \"", K::InvalidValue),
        ],
    );
}

#[test]
fn r160_15_functions() {
    check_ok(
        &schema(),
        &[
            (
                "nearDate(\"2026-01-01T00:00:00Z\", 3)",
                "nearDate(@2026-01-01T00:00:00Z, 3)",
            ),
            ("hasRisk(HIGH)", "hasRisk(HIGH)"),
            ("math.flag(true, x)", "math.flag(true, \"x\")"),
            ("math.flag(false, \"a b\")", "math.flag(false, \"a b\")"),
            ("NOT hasRisk(LOW)", "NOT(hasRisk(LOW))"),
            ("NOT(hasRisk(LOW))", "NOT(hasRisk(LOW))"),
        ],
    );
    use FilterErrorKind as K;
    check_err(
        &schema(),
        &[
            ("nosuchfn(x)", K::UnknownFunction),
            ("flag(true, x)", K::UnknownFunction),
            ("Math.flag(true, x)", K::UnknownFunction),
            ("hasrisk(HIGH)", K::UnknownFunction),
            ("nearDate(1)", K::InvalidFunctionArguments),
            ("hasRisk()", K::InvalidFunctionArguments),
            ("hasRisk(HIGH, LOW)", K::InvalidFunctionArguments),
            ("hasRisk(SEVERE)", K::InvalidValue),
            ("nearDate(\"x\", 3)", K::InvalidValue),
            ("nearDate(\"2026-01-01T00:00:00Z\", three)", K::TypeMismatch),
            ("math.flag(yes, x)", K::TypeMismatch),
            ("math.flag(true, a.b)", K::InvalidFunctionArguments),
            ("math.flag(true, (x))", K::InvalidFunctionArguments),
            ("math.flag(true, hasRisk(LOW))", K::InvalidFunctionArguments),
            ("math.flag(true, x*)", K::InvalidValue),
        ],
    );
    let err = parse_and_check("nosuchfn(x)", &schema()).unwrap_err();
    assert_eq!(err.subject(), Some("nosuchfn"));
    assert!(err.message().contains("hasRisk"), "{err}");
    let none = parse_and_check("f(x)", &schema_without_global()).unwrap_err();
    assert!(none.message().contains("declares no functions"), "{none}");
}

#[test]
fn r160_16_limits() {
    let schema = schema();
    // Length: exactly at the limit is fine, one byte more is not.
    let at_limit = format!("msg = \"{}\"", "x".repeat(MAX_FILTER_LENGTH - 8));
    assert_eq!(at_limit.len(), MAX_FILTER_LENGTH);
    assert!(parse_and_check(&at_limit, &schema).is_ok());
    let over = format!("msg = \"{}\"", "x".repeat(MAX_FILTER_LENGTH - 7));
    let err = parse_and_check(&over, &schema).unwrap_err();
    assert_eq!(err.kind(), FilterErrorKind::LimitExceeded);
    assert_eq!(err.reason(), "FILTER_LIMIT_EXCEEDED");

    // Depth.
    let nested = |n: usize| format!("{}tags:a{}", "(".repeat(n), ")".repeat(n));
    assert!(parse_and_check(&nested(MAX_NESTING_DEPTH), &schema).is_ok());
    let err = parse(&nested(MAX_NESTING_DEPTH + 1)).unwrap_err();
    assert_eq!(err.kind(), FilterErrorKind::LimitExceeded);
    assert_eq!(err.position().offset, MAX_NESTING_DEPTH);
    let calls = |n: usize| format!("{}x{}", "f(".repeat(n), ")".repeat(n));
    assert!(parse(&calls(MAX_NESTING_DEPTH)).is_ok());
    assert_eq!(
        parse(&calls(MAX_NESTING_DEPTH + 1)).unwrap_err().kind(),
        FilterErrorKind::LimitExceeded
    );
    let nots = |n: usize| format!("{}tags:a{}", "NOT(".repeat(n), ")".repeat(n));
    assert!(parse(&nots(MAX_NESTING_DEPTH)).is_ok());
    assert_eq!(
        parse(&nots(MAX_NESTING_DEPTH + 1)).unwrap_err().kind(),
        FilterErrorKind::LimitExceeded
    );

    // Restrictions.
    let many = |n: usize| vec!["tags:a"; n].join(" AND ");
    assert!(parse_and_check(&many(MAX_RESTRICTIONS), &schema).is_ok());
    assert_eq!(
        parse(&many(MAX_RESTRICTIONS + 1)).unwrap_err().kind(),
        FilterErrorKind::LimitExceeded
    );
    let group = |n: usize| format!("state = ({})", vec!["ACTIVE"; n - 1].join(" OR "));
    assert!(parse(&group(MAX_RESTRICTIONS)).is_ok());
    assert_eq!(
        parse(&group(MAX_RESTRICTIONS + 1)).unwrap_err().kind(),
        FilterErrorKind::LimitExceeded
    );

    // Custom limits.
    let tight = FilterLimits {
        max_length: 10,
        max_depth: 1,
        max_restrictions: 2,
    };
    assert!(parse_with_limits("a b", &tight).is_ok());
    for input in ["a b c", "((a))", "aaaaaaaaaaa"] {
        assert_eq!(
            parse_with_limits(input, &tight).unwrap_err().kind(),
            FilterErrorKind::LimitExceeded,
            "{input}"
        );
    }
}

#[test]
fn r160_17_every_error_is_typed_with_a_reason() {
    use FilterErrorKind as K;
    let kinds = [
        K::Syntax,
        K::LimitExceeded,
        K::UnknownField,
        K::InvalidTraversal,
        K::UnsupportedOperator,
        K::TypeMismatch,
        K::InvalidValue,
        K::InvalidComparison,
        K::UnknownFunction,
        K::InvalidFunctionArguments,
        K::GlobalRestrictionUnsupported,
    ];
    let mut reasons: Vec<&str> = kinds.iter().map(|k| k.reason()).collect();
    for reason in &reasons {
        assert!(reason.len() <= 63, "{reason}");
        assert!(
            reason.starts_with(|c: char| c.is_ascii_uppercase()),
            "{reason}"
        );
        assert!(!reason.ends_with('_'), "{reason}");
        assert!(
            reason
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
            "{reason}"
        );
    }
    reasons.sort_unstable();
    reasons.dedup();
    assert_eq!(reasons.len(), kinds.len(), "reasons must be distinct");
    let err = parse_and_check("count = hello", &schema()).unwrap_err();
    assert_eq!(err.reason(), "FILTER_TYPE_MISMATCH");
    assert_eq!(err.subject(), Some("hello"));
    assert_eq!(err.position().column, 9);
}

#[test]
fn schema_redeclaration_replaces() {
    let schema = FilterSchema::new()
        .field("a", FieldType::String)
        .field("a", FieldType::Integer)
        .function("f", &[])
        .function("f", &[ParamType::Integer]);
    check_ok(&schema, &[("a = 1", "a = 1"), ("f(2)", "f(2)")]);
    check_err(
        &schema,
        &[
            ("a = x", FilterErrorKind::TypeMismatch),
            ("f()", FilterErrorKind::InvalidFunctionArguments),
        ],
    );
}

#[test]
fn enum_aliases_read_as_their_value() {
    for (filter, want) in [
        ("riskDetails.riskStatus = ACTIVE", "ACTIVE"),
        ("riskDetails.riskStatus = RATED", "ACTIVE"),
        ("riskDetails.riskStatus != \"RATED\"", "ACTIVE"),
        ("riskDetails.riskStatus = OUTDATED", "OUTDATED"),
    ] {
        match parse_and_check(filter, &schema()).unwrap() {
            Some(Condition::Compare { value, .. }) => assert_eq!(literal(&value), want, "{filter}"),
            other => panic!("{filter}: {other:?}"),
        }
    }
    for (filter, kind) in [
        (
            "riskDetails.riskStatus = rated",
            FilterErrorKind::InvalidValue,
        ),
        (
            "riskDetails.riskStatus > RATED",
            FilterErrorKind::UnsupportedOperator,
        ),
    ] {
        assert_eq!(
            parse_and_check(filter, &schema()).unwrap_err().kind(),
            kind,
            "{filter}"
        );
    }
}
