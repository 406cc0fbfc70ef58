//! `ragger redact`: apply the current redaction rules to a stored database.

use anyhow::Result;

use crate::cli::RedactArgs;
use crate::cmd::{print_json, Ctx};
use crate::exit::{fail, Exit};
use crate::redact::Redactor;
use crate::store::privacy::redact_stored;

pub fn run(ctx: &Ctx, args: &RedactArgs) -> Result<Exit> {
    let r = Redactor::new(&ctx.config.privacy)?;
    if !r.enabled() {
        return Err(fail(Exit::Config, "[privacy] redact is false: nothing to apply"));
    }
    let db = ctx.db_path();
    let _lock = crate::cmd::lock_unless_dry(&db, args.dry_run)?;
    let mut store = ctx.open_store()?;
    let rep = redact_stored(&mut store, &r, args.dry_run)?;
    if ctx.json() {
        print_json(&rep)?;
    } else if !ctx.quiet() {
        let verb = if args.dry_run { "would redact" } else { "redacted" };
        println!(
            "{verb} {} secrets in {} turns and {} summaries ({} vectors to compute again)",
            rep.secrets, rep.turns_changed, rep.summaries_changed, rep.vectors_to_recompute
        );
    }
    Ok(Exit::Ok)
}
