//! `ragger check`: exit 1 naming every violated invariant.

use anyhow::Result;

use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let store = ctx.open_existing_store()?;
    let violations = crate::store::check::check(&store)?;
    if ctx.json() {
        print_json(&serde_json::json!({"ok": violations.is_empty(), "violations": violations}))?;
    } else {
        for v in &violations {
            println!("{}: {}", v.check, v.detail);
        }
        if violations.is_empty() && ctx.verbose() > 0 {
            crate::display::eprint(&format!("{}: all invariants hold", store.path.display()));
        }
    }
    if violations.is_empty() {
        Ok(Exit::Ok)
    } else {
        if !ctx.json() {
            crate::display::eprint(&format!("{} invariant violation(s) in {}", violations.len(), store.path.display()));
        }
        Ok(Exit::Failed)
    }
}
