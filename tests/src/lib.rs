//! Black-box tests of rics over real HTTP; the tests live in `tests/`.
