//! Unit tests of the MRZ module: the specimens printed in Doc 9303, bad input, and OCR
//! confusions.

use time::Month;
use time::macros::date;

use super::*;

/// The day the tests read MRZs on.
const TODAY: time::Date = date!(2025 - 06 - 15);

fn read(lines: &[&str]) -> Mrz {
    parse(lines, TODAY).unwrap()
}

fn printed_digit(data: &str) -> char {
    char::from(b'0' + check_digit(data))
}

fn check_of(mrz: &Mrz, field: CheckedField) -> CheckDigitResult {
    *mrz.check(field).unwrap()
}

const TD3_SPECIMEN: [&str; 2] = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
];
const TD1_SPECIMEN: [&str; 3] = [
    "I<UTOD231458907<<<<<<<<<<<<<<<",
    "7408122F1204159UTO<<<<<<<<<<<6",
    "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
];
const TD2_SPECIMEN: [&str; 2] = [
    "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
    "D231458907UTO7408122F1204159<<<<<<<6",
];
const MRV_A_SPECIMEN: [&str; 2] = [
    "VIUTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L8988901C4XXX4009078F96121096ZE184226B<<<<<<",
];
const MRV_B_SPECIMEN: [&str; 2] = [
    "VIUTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
    "L8988901C4XXX4009078F9612109<<<<<<<<",
];

#[test]
fn the_td3_specimen_of_part_4_reads_and_its_digits_are_right() {
    let [_, line_2] = TD3_SPECIMEN;
    assert_eq!(printed_digit("L898902C3"), '6');
    assert_eq!(printed_digit("740812"), '2');
    assert_eq!(printed_digit("120415"), '9');
    assert_eq!(printed_digit("ZE184226B<<<<<"), '1');
    assert_eq!(
        printed_digit(&format!(
            "{}{}{}",
            &line_2[0..10],
            &line_2[13..20],
            &line_2[21..43]
        )),
        '0'
    );

    let mrz = read(&TD3_SPECIMEN);
    assert_eq!(mrz.format, MrzFormat::Td3);
    assert_eq!(mrz.document_code, "P");
    assert_eq!(mrz.issuing_state, "UTO");
    assert_eq!(mrz.primary_identifier, "ERIKSSON");
    assert_eq!(mrz.secondary_identifier, "ANNA MARIA");
    assert_eq!(mrz.document_number, "L898902C3");
    assert_eq!(mrz.nationality, "UTO");
    assert_eq!(mrz.birth_date.printed, "740812");
    assert_eq!(mrz.birth_date.date(), Some(date!(1974 - 08 - 12)));
    assert_eq!(mrz.sex, Some(Sex::Female));
    assert_eq!(mrz.expiry_date.date(), Some(date!(2012 - 04 - 15)));
    assert_eq!(mrz.optional_data, "ZE184226B");
    assert_eq!(mrz.optional_data_2, None);
    let fields: Vec<CheckedField> = mrz.check_digits.iter().map(|c| c.field).collect();
    assert_eq!(
        fields,
        [
            CheckedField::DocumentNumber,
            CheckedField::BirthDate,
            CheckedField::ExpiryDate,
            CheckedField::OptionalData,
            CheckedField::Composite
        ]
    );
    assert!(mrz.is_valid(), "{mrz:#?}");
    assert!(mrz.suspicions.is_empty());
    let composite = check_of(&mrz, CheckedField::Composite);
    assert_eq!(
        (
            composite.line,
            composite.column,
            composite.printed,
            composite.computed
        ),
        (2, 44, '0', 0)
    );
}

#[test]
fn the_td1_specimen_of_part_5_reads_and_its_digits_are_right() {
    let [line_1, line_2, _] = TD1_SPECIMEN;
    assert_eq!(printed_digit("D23145890"), '7');
    let composite_data = format!(
        "{}{}{}{}",
        &line_1[5..30],
        &line_2[0..7],
        &line_2[8..15],
        &line_2[18..29]
    );
    assert_eq!(printed_digit(&composite_data), '6');

    let mrz = read(&TD1_SPECIMEN);
    assert_eq!(mrz.format, MrzFormat::Td1);
    assert_eq!(mrz.document_code, "I");
    assert_eq!(mrz.document_number, "D23145890");
    assert_eq!(mrz.nationality, "UTO");
    assert_eq!(mrz.primary_identifier, "ERIKSSON");
    assert_eq!(mrz.secondary_identifier, "ANNA MARIA");
    assert_eq!(mrz.optional_data, "");
    assert_eq!(mrz.optional_data_2.as_deref(), Some(""));
    assert_eq!(mrz.check_digits.len(), 4);
    assert!(mrz.is_valid(), "{mrz:#?}");
}

#[test]
fn the_td2_specimen_of_part_6_reads_and_its_digits_are_right() {
    let [_, line_2] = TD2_SPECIMEN;
    assert_eq!(
        printed_digit(&format!(
            "{}{}{}",
            &line_2[0..10],
            &line_2[13..20],
            &line_2[21..35]
        )),
        '6'
    );

    let mrz = read(&TD2_SPECIMEN);
    assert_eq!(mrz.format, MrzFormat::Td2);
    assert_eq!(mrz.document_number, "D23145890");
    assert_eq!(mrz.secondary_identifier, "ANNA MARIA");
    assert_eq!(mrz.check_digits.len(), 4);
    assert!(mrz.is_valid(), "{mrz:#?}");
}

#[test]
fn the_visa_specimens_of_part_7_read_and_their_digits_are_right() {
    assert_eq!(printed_digit("L8988901C"), '4');
    assert_eq!(printed_digit("400907"), '8');
    assert_eq!(printed_digit("961210"), '9');

    let visa_a = read(&MRV_A_SPECIMEN);
    assert_eq!(visa_a.format, MrzFormat::MrvA);
    assert_eq!(visa_a.document_code, "VI");
    assert_eq!(visa_a.nationality, "XXX");
    assert_eq!(visa_a.optional_data, "6ZE184226B");
    assert_eq!(visa_a.birth_date.date(), Some(date!(1940 - 09 - 07)));
    assert_eq!(visa_a.expiry_date.date(), Some(date!(1996 - 12 - 10)));
    assert_eq!(visa_a.check_digits.len(), 3);
    assert!(visa_a.is_valid(), "{visa_a:#?}");

    let visa_b = read(&MRV_B_SPECIMEN);
    assert_eq!(visa_b.format, MrzFormat::MrvB);
    assert_eq!(visa_b.document_number, "L8988901C");
    assert_eq!(visa_b.optional_data, "");
    assert_eq!(visa_b.check_digits.len(), 3);
    assert!(visa_b.is_valid(), "{visa_b:#?}");
}

fn specimen_fields(format: MrzFormat) -> MrzFields {
    MrzFields {
        format,
        document_code: "P".to_owned(),
        issuing_state: "UTO".to_owned(),
        primary_identifier: "ERIKSSON".to_owned(),
        secondary_identifier: "ANNA MARIA".to_owned(),
        document_number: "L898902C3".to_owned(),
        nationality: "UTO".to_owned(),
        birth_date: "740812".to_owned(),
        sex: Sex::Female,
        expiry_date: "120415".to_owned(),
        optional_data: "ZE184226B".to_owned(),
        optional_data_2: String::new(),
    }
}

#[test]
fn compose_writes_the_specimens() {
    assert_eq!(
        compose(&specimen_fields(MrzFormat::Td3)).unwrap(),
        TD3_SPECIMEN
    );
    let td1 = MrzFields {
        document_code: "I".to_owned(),
        document_number: "D23145890".to_owned(),
        optional_data: String::new(),
        ..specimen_fields(MrzFormat::Td1)
    };
    assert_eq!(compose(&td1).unwrap(), TD1_SPECIMEN);
    let td2 = MrzFields {
        format: MrzFormat::Td2,
        ..td1.clone()
    };
    assert_eq!(compose(&td2).unwrap(), TD2_SPECIMEN);
    let visa = MrzFields {
        format: MrzFormat::MrvA,
        document_code: "VI".to_owned(),
        document_number: "L8988901C".to_owned(),
        nationality: "XXX".to_owned(),
        birth_date: "400907".to_owned(),
        expiry_date: "961210".to_owned(),
        optional_data: "6ZE184226B".to_owned(),
        ..specimen_fields(MrzFormat::MrvA)
    };
    assert_eq!(compose(&visa).unwrap(), MRV_A_SPECIMEN);
    let visa_b = MrzFields {
        format: MrzFormat::MrvB,
        optional_data: String::new(),
        ..visa
    };
    assert_eq!(compose(&visa_b).unwrap(), MRV_B_SPECIMEN);
}

#[test]
fn compose_refuses_what_does_not_fit() {
    let too_long = MrzFields {
        document_number: "L898902C3X".to_owned(),
        ..specimen_fields(MrzFormat::Td3)
    };
    assert_eq!(
        compose(&too_long).unwrap_err().to_string(),
        "the document number has 10 characters; at most 9 fit"
    );
    let lower = MrzFields {
        primary_identifier: "Eriksson".to_owned(),
        ..specimen_fields(MrzFormat::Td3)
    };
    assert!(matches!(
        compose(&lower),
        Err(ComposeError::InvalidCharacter { found: 'r', .. })
    ));
    let second = MrzFields {
        optional_data_2: "X".to_owned(),
        ..specimen_fields(MrzFormat::Td3)
    };
    assert!(matches!(
        compose(&second),
        Err(ComposeError::NotInFormat { .. })
    ));
}

/// Part 5's long document number: D23145890734, check digit 9.
#[test]
fn a_td1_document_number_longer_than_nine_overflows_into_the_optional_data() {
    assert_eq!(printed_digit("D23145890734"), '9');
    let fields = MrzFields {
        document_code: "I".to_owned(),
        document_number: "D23145890734".to_owned(),
        optional_data: String::new(),
        ..specimen_fields(MrzFormat::Td1)
    };
    let lines = compose(&fields).unwrap();
    assert_eq!(lines[0], "I<UTOD23145890<7349<<<<<<<<<<<");

    let mrz = read(&[lines[0].as_str(), lines[1].as_str(), lines[2].as_str()]);
    assert_eq!(mrz.document_number, "D23145890734");
    assert_eq!(mrz.optional_data, "");
    let number = check_of(&mrz, CheckedField::DocumentNumber);
    assert_eq!(
        (number.line, number.column, number.printed, number.valid),
        (1, 19, '9', true)
    );
    assert!(mrz.is_valid(), "{mrz:#?}");

    let with_data = MrzFields {
        optional_data: "AB12".to_owned(),
        ..fields
    };
    let lines = compose(&with_data).unwrap();
    assert_eq!(lines[0], "I<UTOD23145890<7349<AB12<<<<<<");
    let mrz = parse(&lines, TODAY).unwrap();
    assert_eq!(
        (mrz.document_number.as_str(), mrz.optional_data.as_str()),
        ("D23145890734", "AB12")
    );
    assert!(mrz.is_valid(), "{mrz:#?}");
}

#[test]
fn a_short_td1_number_with_a_filler_check_digit_fails_its_check() {
    let mrz = read(&[
        "I<UTOD23145890<<<<<<<<<<<<<<<<",
        "7408122F1204159UTO<<<<<<<<<<<6",
        "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
    ]);
    let number = check_of(&mrz, CheckedField::DocumentNumber);
    assert_eq!(
        (number.printed, number.computed, number.valid),
        ('<', 7, false)
    );
}

#[test]
fn the_wrong_number_of_lines_is_a_format_error() {
    let error = parse(&["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"], TODAY).unwrap_err();
    assert_eq!(error, MrzFormatError::LineCount { found: 1 });
    assert_eq!(error.to_string(), "an MRZ has 2 or 3 lines; found 1");
    assert!(parse::<&str>(&[], TODAY).is_err());
}

#[test]
fn a_line_of_the_wrong_length_is_a_format_error_naming_found_and_expected() {
    let short = parse(&[TD3_SPECIMEN[0], &TD3_SPECIMEN[1][..43]], TODAY).unwrap_err();
    assert_eq!(
        short.to_string(),
        "line 2 has 43 characters; expected 44, as line 1 has"
    );
    let odd = parse(&["P<UTO", TD3_SPECIMEN[1]], TODAY).unwrap_err();
    assert_eq!(
        odd.to_string(),
        "line 1 has 5 characters; expected 36 (TD2, MRV-B) or 44 (TD3, MRV-A)"
    );
    let td1 = parse(&[TD1_SPECIMEN[0], TD1_SPECIMEN[1], "ERIKSSON<<ANNA"], TODAY).unwrap_err();
    assert_eq!(
        td1,
        MrzFormatError::LineLength {
            line: 3,
            found: 14,
            expected: ExpectedLength::ThreeLineFormat
        }
    );
}

#[test]
fn lower_case_and_foreign_characters_are_format_errors_naming_the_column() {
    let lower = parse(
        &[
            TD3_SPECIMEN[0],
            "L898a02C36UTO7408122F1204159ZE184226B<<<<<10",
        ],
        TODAY,
    )
    .unwrap_err();
    assert_eq!(
        lower.to_string(),
        "line 2 column 5: 'a' is lower case; MRZ characters are upper case"
    );
    let space = parse(
        &[
            "P<UTOERIKSSON  ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            TD3_SPECIMEN[1],
        ],
        TODAY,
    )
    .unwrap_err();
    assert_eq!(
        space.to_string(),
        "line 1 column 14: a space is not an MRZ character (A-Z, 0-9, <)"
    );
    let accent = parse(
        &[
            "P<UTOERIKSSÖN<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            TD3_SPECIMEN[1],
        ],
        TODAY,
    )
    .unwrap_err();
    assert_eq!(
        accent,
        MrzFormatError::InvalidCharacter {
            line: 1,
            column: 12,
            found: 'Ö'
        }
    );
}

#[test]
fn unknown_document_codes_are_format_errors() {
    let passport_shape = parse(
        &[
            "X<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            TD3_SPECIMEN[1],
        ],
        TODAY,
    )
    .unwrap_err();
    assert_eq!(
        passport_shape.to_string(),
        "line 1 column 1: document code 'X<' is not allowed here: P (TD3 passport) or V (MRV-A visa)"
    );
    let td1_passport = parse(
        &[
            "P<UTOD231458907<<<<<<<<<<<<<<<",
            TD1_SPECIMEN[1],
            TD1_SPECIMEN[2],
        ],
        TODAY,
    )
    .unwrap_err();
    assert!(matches!(
        td1_passport,
        MrzFormatError::UnknownDocumentCode { column: 1, .. }
    ));
    let second_v = parse(
        &["IVUTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", TD2_SPECIMEN[1]],
        TODAY,
    )
    .unwrap_err();
    assert!(matches!(
        second_v,
        MrzFormatError::UnknownDocumentCode { column: 2, .. }
    ));
}

#[test]
fn a_wrong_check_digit_is_a_failed_check_not_an_error() {
    let mrz = read(&[
        TD3_SPECIMEN[0],
        "L898902C36UTO7408123F1204159ZE184226B<<<<<10",
    ]);
    let birth = check_of(&mrz, CheckedField::BirthDate);
    assert_eq!(
        (
            birth.line,
            birth.column,
            birth.printed,
            birth.computed,
            birth.valid
        ),
        (2, 20, '3', 2, false)
    );
    assert!(!birth.passes_with_likely_characters);
    assert_eq!(
        birth.to_string(),
        "line 2 column 20: the birth date check digit is '3'; the data gives 2"
    );
    // The composite covers the birth date check digit too.
    assert!(!check_of(&mrz, CheckedField::Composite).valid);
    assert!(check_of(&mrz, CheckedField::DocumentNumber).valid);
    assert!(!mrz.check_digits_valid());
    assert!(mrz.problems.is_empty());
    assert_eq!(mrz.birth_date.date(), Some(date!(1974 - 08 - 12)));
}

#[test]
fn a_changed_document_number_fails_its_check_and_the_composite() {
    let mrz = read(&[
        TD3_SPECIMEN[0],
        "L898912C36UTO7408122F1204159ZE184226B<<<<<10",
    ]);
    let failed: Vec<CheckedField> = mrz
        .check_digits
        .iter()
        .filter(|c| !c.valid)
        .map(|c| c.field)
        .collect();
    assert_eq!(
        failed,
        [CheckedField::DocumentNumber, CheckedField::Composite]
    );
}

/// The specimen passport with some fields changed, composed with right check digits.
fn passport(change: impl FnOnce(&mut MrzFields)) -> Vec<String> {
    let mut fields = specimen_fields(MrzFormat::Td3);
    change(&mut fields);
    compose(&fields).unwrap()
}

#[test]
fn td3_optional_data_of_fillers_may_have_a_filler_or_zero_check_digit() {
    let zero = passport(|fields| fields.optional_data.clear());
    assert_eq!(&zero[1][42..], "08");
    let filler = [zero[0].clone(), format!("{}<8", &zero[1][..42])];
    for lines in [&zero[..], &filler[..]] {
        let mrz = parse(lines, TODAY).unwrap();
        assert!(mrz.is_valid(), "{lines:?}: {mrz:#?}");
        assert_eq!(mrz.optional_data, "");
    }
    let not_empty = read(&[
        TD3_SPECIMEN[0],
        "L898902C36UTO7408122F1204159ZE184226B<<<<<<0",
    ]);
    assert!(!check_of(&not_empty, CheckedField::OptionalData).valid);
}

#[test]
fn letters_in_digit_positions_are_suspected_and_a_check_that_passes_with_them_says_so() {
    // 740812 printed 74O812, and the birth date check digit 2 printed Z.
    let mrz = read(&[
        TD3_SPECIMEN[0],
        "L898902C36UTO74O812ZF1204159ZE184226B<<<<<10",
    ]);
    assert_eq!(
        mrz.suspicions,
        [
            Suspicion {
                line: 2,
                column: 16,
                found: 'O',
                likely: '0',
                field: MrzField::BirthDate
            },
            Suspicion {
                line: 2,
                column: 20,
                found: 'Z',
                likely: '2',
                field: MrzField::CheckDigit(CheckedField::BirthDate)
            },
        ]
    );
    let birth = check_of(&mrz, CheckedField::BirthDate);
    assert!(!birth.valid && birth.passes_with_likely_characters);
    let composite = check_of(&mrz, CheckedField::Composite);
    assert!(!composite.valid && composite.passes_with_likely_characters);
    assert!(
        birth
            .to_string()
            .ends_with("(it passes when the suspected OCR confusions are corrected)")
    );
    assert_eq!(mrz.birth_date.reading, DateReading::Unreadable);
    assert_eq!(
        mrz.problems,
        [FieldProblem::DigitExpected {
            field: MrzField::BirthDate,
            line: 2,
            column: 16,
            found: 'O'
        }]
    );
    assert_eq!(
        mrz.suspicions[0].to_string(),
        "line 2 column 16: 'O' in the birth date is probably '0'"
    );
}

#[test]
fn digits_in_letter_positions_are_suspected() {
    let mrz = read(&[
        "P<UT0ER1KSSON<<ANNA<MAR7A<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ]);
    let suspected: Vec<(usize, char, char, MrzField)> = mrz
        .suspicions
        .iter()
        .map(|s| (s.column, s.found, s.likely, s.field))
        .collect();
    assert_eq!(
        suspected,
        [
            (5, '0', 'O', MrzField::IssuingState),
            (8, '1', 'I', MrzField::Name)
        ]
    );
    // 7 is no likely letter: only a problem.
    assert_eq!(mrz.problems.len(), 3);
    assert_eq!(mrz.issuing_state, "UT0");
    assert_eq!(mrz.primary_identifier, "ER1KSSON");
    assert!(mrz.check_digits_valid());
    assert!(!mrz.is_valid());
}

#[test]
fn a_one_read_as_i_in_the_document_code_still_decides_the_format() {
    let mrz = read(&["1<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", TD2_SPECIMEN[1]]);
    assert_eq!(mrz.format, MrzFormat::Td2);
    assert_eq!(mrz.suspicions[0].likely, 'I');
}

#[test]
fn an_impossible_date_is_a_problem_not_a_panic() {
    let mrz = parse(
        &passport(|fields| fields.birth_date = "741312".to_owned()),
        TODAY,
    )
    .unwrap();
    assert!(mrz.check_digits_valid());
    assert_eq!(mrz.birth_date.reading, DateReading::Unreadable);
    assert_eq!(
        mrz.problems[0].to_string(),
        "the birth date '741312' is not a date: month 13 does not exist"
    );
}

#[test]
fn birth_dates_may_have_unknown_day_or_month() {
    let mrz = parse(
        &passport(|fields| fields.birth_date = "7408<<".to_owned()),
        TODAY,
    )
    .unwrap();
    assert!(mrz.is_valid(), "{mrz:#?}");
    assert_eq!(
        mrz.birth_date.reading,
        DateReading::Partial {
            year: Some(1974),
            month: Some(Month::August),
            day: None
        }
    );
    let unknown_month = parse(
        &passport(|fields| fields.birth_date = "74<<12".to_owned()),
        TODAY,
    )
    .unwrap();
    assert!(unknown_month.is_valid(), "{unknown_month:#?}");
    let expiry = parse(
        &passport(|fields| fields.expiry_date = "1204<<".to_owned()),
        TODAY,
    )
    .unwrap();
    assert_eq!(expiry.expiry_date.reading, DateReading::Unreadable);
    assert!(matches!(
        expiry.problems[..],
        [
            FieldProblem::DigitExpected {
                column: 26,
                found: '<',
                ..
            },
            FieldProblem::DigitExpected {
                column: 27,
                found: '<',
                ..
            }
        ]
    ));
}

#[test]
fn sex_codes() {
    let sex = |code: char| {
        let line_2 = format!("L898902C36UTO7408122{code}1204159ZE184226B<<<<<10");
        read(&[TD3_SPECIMEN[0], &line_2])
    };
    assert_eq!(sex('M').sex, Some(Sex::Male));
    assert_eq!(sex('X').sex, Some(Sex::Unspecified));
    assert_eq!(sex('<').sex, Some(Sex::Unspecified));
    let unknown = sex('Q');
    assert_eq!(unknown.sex, None);
    assert!(matches!(
        unknown.problems[0],
        FieldProblem::UnknownSex {
            column: 21,
            found: 'Q',
            ..
        }
    ));
}

#[test]
fn an_expiry_before_the_birth_is_a_problem() {
    let mrz = parse(
        &passport(|fields| fields.birth_date = "150812".to_owned()),
        TODAY,
    )
    .unwrap();
    assert_eq!(
        mrz.problems,
        [FieldProblem::ExpiryBeforeBirth {
            birth: date!(2015 - 08 - 12),
            expiry: date!(2012 - 04 - 15)
        }]
    );
}

#[test]
fn document_numbers_must_be_present_and_left_aligned() {
    let missing = parse(&passport(|fields| fields.document_number.clear()), TODAY).unwrap();
    assert_eq!(
        missing.problems,
        [FieldProblem::MissingDocumentNumber { line: 2, column: 1 }]
    );
    let shifted = parse(
        &passport(|fields| fields.document_number = "<L898902C".to_owned()),
        TODAY,
    )
    .unwrap();
    assert_eq!(shifted.document_number, "L898902C");
    assert_eq!(
        shifted.problems,
        [FieldProblem::DocumentNumberNotLeftAligned { line: 2, column: 1 }]
    );
}

#[test]
fn names_split_at_the_first_double_filler() {
    let mrz = read(&[
        "P<UTOVAN<DER<BERG<<JAN<<<<<<<<<<<<<<<<<<<<<<",
        TD3_SPECIMEN[1],
    ]);
    assert_eq!(
        (
            mrz.primary_identifier.as_str(),
            mrz.secondary_identifier.as_str()
        ),
        ("VAN DER BERG", "JAN")
    );
    let single = read(&[
        "P<UTOMADONNA<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
        TD3_SPECIMEN[1],
    ]);
    assert_eq!(
        (
            single.primary_identifier.as_str(),
            single.secondary_identifier.as_str()
        ),
        ("MADONNA", "")
    );
}

#[test]
fn issuing_states_keep_their_printed_codes() {
    for (state, expected) in [("D<<", "D"), ("XXA", "XXA"), ("UNO", "UNO")] {
        let line_1 = format!("P<{state}ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<");
        assert_eq!(read(&[&line_1, TD3_SPECIMEN[1]]).issuing_state, expected);
    }
}

#[test]
fn parse_text_ignores_surrounding_spaces_and_blank_lines() {
    let text = format!("\n  {}\r\n{}  \n\n", TD3_SPECIMEN[0], TD3_SPECIMEN[1]);
    assert_eq!(parse_text(&text, TODAY).unwrap(), read(&TD3_SPECIMEN));
}
