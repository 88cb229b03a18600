//! Misuses of `#[patch(...)]` must fail with one clear error at the
//! offending token; valid uses must compile.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
