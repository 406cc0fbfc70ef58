//! Reply cleaning and NO_MERGE verdict parsing on arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../props.rs"]
mod props;

fuzz_target!(|data: &[u8]| props::check_reply(&String::from_utf8_lossy(data)));
