//! How the `ragger` binary is linked on Linux (issue 35: every agent turn
//! starts a process, so the start is paid thousands of times a day; see
//! BENCHMARKS.md, "Process start and the per-turn commands").
//!
//! - Position-dependent (`-no-pie`): a position-independent `ragger` has
//!   about 50,000 relative relocations, applied by the dynamic loader at
//!   every start, which write to some 220 pages of data (a copy-on-write
//!   fault each): a fifth of `ragger --version`. Given up: the address of
//!   the binary's own code is not randomised (the libraries, the heap and
//!   the stack still are).
//! - The unwinder linked in (libgcc_eh, as `gcc -static-libgcc` does) instead
//!   of loading libgcc_s, whose constructor asks the CPU for its features
//!   (dozens of `cpuid`, each a trap to the hypervisor in a virtual
//!   machine) at every start: a tenth of `ragger --version` there.
//!
//! libstdc++ and libgomp are linked in by llama-cpp-2's `static-stdcxx` and
//! `static-openmp` features (Cargo.toml). `ragger` then loads only libc and
//! libm, as `sqlite3` does.
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" || env != "gnu" {
        return;
    }
    // Only the binaries: the tests, examples and benches keep the default.
    println!("cargo:rustc-link-arg-bins=-no-pie");
    // Whole, so that its unwinder is what the standard library binds to;
    // libgcc_s is then not needed (the linker runs with --as-needed). Without
    // the archive (another C compiler), libgcc_s is loaded as before.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let found = Command::new(cc).arg("--print-file-name=libgcc_eh.a").output().ok().filter(|o| o.status.success());
    let path = found.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    if let Some(dir) = Path::new(&path).is_absolute().then(|| Path::new(&path).parent()).flatten() {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static:+whole-archive,-bundle=gcc_eh");
    }
}
