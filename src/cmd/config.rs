//! `ragger config default|show|path`.

use anyhow::Result;

use crate::cli::{ConfigAction, ConfigArgs};
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;

pub fn run(ctx: &Ctx, args: &ConfigArgs) -> Result<Exit> {
    match args.action {
        ConfigAction::Default => print!("{}", crate::config::EXAMPLE),
        ConfigAction::Show => {
            // With the paths a command would use filled in.
            let config = crate::origin::resolved(ctx);
            if ctx.json() {
                print_json(&config)?;
            } else {
                print!("{}", toml::to_string_pretty(&config)?);
            }
        }
        ConfigAction::Path => {
            if ctx.json() {
                print_json(&ctx.sources)?;
            } else {
                for s in &ctx.sources {
                    println!("{}{}", s.path.display(), if s.exists { "" } else { " (absent)" });
                }
            }
        }
    }
    Ok(Exit::Ok)
}
