//! The fuzz target's entry function (`rics_screening::fuzzing::exercise`, run by
//! `crates/screening/fuzz`) on a corpus of nasty inputs, so that every `cargo test` checks it
//! builds and that none of these inputs panics, with or without cargo-fuzz.

use rics_screening::fuzzing::exercise;

fn corpus() -> Vec<Vec<u8>> {
    let mut inputs: Vec<Vec<u8>> = vec![
        Vec::new(),
        b" ".to_vec(),
        b",".to_vec(),
        b"\0\x07\x1b[31m\x7f".to_vec(),
        "Ivan\u{0}\u{7}Petrov".into(),
        "31 Feb 1970".into(),
        "1970-02-31".into(),
        "circa 0000 to 9999".into(),
        "DOB 31 Feb 1970; alt. DOB circa 1960 to 1950; nationality Atlantis; a.k.a. 'X';".into(),
        "Владимир Путин محمد القذافي 김정은 习近平 山田太郎 ប៉ុល ពត Αλέξανδρος".into(),
        "ال".into(),
        "الالالالال".into(),
        "ﷺﷻ﷽".into(),
        "\u{202e}nitup rimidalv\u{202c}".into(),
        "A.B.C.D.E.F.G.H.".into(),
        "forty forty forty 4 4 4 first 1st 999999999999".into(),
        "Abd al Abd al Abd al".into(),
        ",,,,,,,,,,,,,,,,".into(),
        "\"unterminated,quote\n".into(),
        "full_name,date_of_birth\nIvan Petrov,31 Feb 1970\n,\n".into(),
        "{\"full_name\": 5}\n{not json}\n[]\nnull\n".into(),
        "<?xml version=\"1.0\"?><CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><FIRST_NAME>".into(),
        "<INDIVIDUAL><INDIVIDUAL_DATE_OF_BIRTH><YEAR>99999999999</YEAR></INDIVIDUAL_DATE_OF_BIRTH></INDIVIDUAL>".into(),
        "1,\"PUTIN, Vladimir\",individual,RUSSIA,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"DOB 31 Feb 1970; nationality Russia\"\r\n\x1a".into(),
        "_id,source,name,type,dates_of_birth\n1,x,,Individual,31 Feb 1970;;;\n".into(),
        vec![0xff, 0xfe, 0xfd, 0x80, 0x00],
        vec![0xef, 0xbb, 0xbf, b'n', b'a', b'm', b'e', b'\n', b'x'],
    ];
    inputs.push("Ab".repeat(5_000).into_bytes());
    inputs.push("x".repeat(10_000).into_bytes());
    inputs.push("Muhammad ".repeat(1_200).into_bytes());
    inputs.push("ß".repeat(4_000).into_bytes());
    inputs.push("\u{0301}".repeat(3_000).into_bytes());
    inputs.push(format!("name\n{}\n", "é".repeat(10_000)).into_bytes());
    inputs.push(
        (0..2_000u32)
            .filter_map(char::from_u32)
            .collect::<String>()
            .into_bytes(),
    );
    inputs
}

#[test]
fn the_fuzz_entry_survives_nasty_inputs() {
    for input in corpus() {
        exercise(&input);
    }
}
