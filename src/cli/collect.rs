//! `packer collect`: a fixture made from a directory's text files.

use std::path::PathBuf;

use clap::Args;
use packer::error::EXIT_OK;
use packer::{Error, PartialBudget, RequestNames};

use super::{BudgetArgs, repo, write_stdout};

#[derive(Debug, Args)]
pub struct CollectArgs {
    /// The directory to walk
    pub dir: PathBuf,

    #[command(flatten)]
    pub collect: repo::CollectFlags,

    /// Budget values to put in the fixture
    #[command(flatten)]
    pub budget: BudgetArgs,

    /// Draw no progress on standard error (it is drawn only on a terminal,
    /// once the walk has taken a second)
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: CollectArgs) -> Result<i32, Error> {
    let found = args.collect.config(&args.dir)?;
    let config = found.as_ref().map(|found| &found.config);
    let collection = args.collect.collect(&args.dir, config, args.quiet)?;
    let mut budget = args.budget.names(RequestNames::default()).build()?.budget;
    if budget == PartialBudget::default()
        && let Some(config) = config
    {
        budget = config.budget();
    }
    write_stdout(packer_collect::fixture_json(&collection, &budget).as_bytes())?;
    Ok(EXIT_OK)
}
