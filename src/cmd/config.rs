//! `ragger config default|show|path`.

use anyhow::Result;

use crate::cli::{ConfigAction, ConfigArgs};
use crate::cmd::{print_json, Ctx};
use crate::exit::Exit;

pub fn run(ctx: &Ctx, args: &ConfigArgs) -> Result<Exit> {
    match args.action {
        ConfigAction::Default => print!("{}", crate::config::EXAMPLE),
        ConfigAction::Show => {
            if ctx.json() {
                print_json(&ctx.config)?;
            } else {
                print!("{}", toml::to_string_pretty(&ctx.config)?);
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
