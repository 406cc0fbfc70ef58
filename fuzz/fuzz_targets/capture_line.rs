//! The capture JSON Lines parser and validation on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../props.rs"]
mod props;

fuzz_target!(|data: &[u8]| props::check_capture_line(data));
