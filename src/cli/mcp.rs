//! `packer mcp`: its flags, handed to the server (crates/packer-mcp) as
//! its settings.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use packer::Error;
use packer_mcp::{Settings, SummaryPlace};

/// `packer mcp` options: what the server may read and how it answers.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// A directory that pack_directory may read (repeatable; default: the
    /// current directory); relative paths start at the first
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    /// Where a pack's summary goes: `structured` (structuredContent, with
    /// an output schema), `text` (a second text block after the payload),
    /// or `none` (the payload alone)
    #[arg(long, value_enum, default_value_t = SummaryArg::Structured)]
    pub summary: SummaryArg,

    /// Refuse pack_documents documents or a count_tokens text larger than
    /// this many bytes (directories have collect's limits)
    #[arg(long, value_name = "N", default_value_t = 16 << 20)]
    pub max_input_bytes: u64,

    /// Refuse a pack_documents call with more documents than this
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_documents: usize,

    /// The seconds a call's chat template may render for in all (it runs
    /// in a worker process that is stopped then)
    #[arg(long, value_name = "N", default_value_t = packer_files::render::DEFAULT_TEMPLATE_SECONDS)]
    pub template_seconds: u64,

    /// The MiB of memory a call's chat template worker may use
    #[arg(long, value_name = "MIB", default_value_t = packer_files::render::DEFAULT_TEMPLATE_MEMORY_MIB)]
    pub template_memory: u64,

    /// The most calls that pack or count at once; up to 64 more wait, and
    /// a call beyond those is answered at once with error[busy]
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub max_calls: u64,
}

/// Where a pack's summary goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SummaryArg {
    /// As structuredContent (launchers that show structuredContent to the
    /// model instead of the text then show only the summary)
    Structured,
    /// As a second text block after the payload
    Text,
    /// Not at all: the payload alone
    None,
}

/// Serves until the client closes standard input.
pub fn run(args: McpArgs) -> Result<i32, Error> {
    packer_mcp::run(Settings {
        roots: args.roots,
        summary: match args.summary {
            SummaryArg::Structured => SummaryPlace::Structured,
            SummaryArg::Text => SummaryPlace::Text,
            SummaryArg::None => SummaryPlace::None,
        },
        max_input_bytes: args.max_input_bytes,
        max_documents: args.max_documents,
        template_limits: packer_files::render::TemplateLimits {
            seconds: args.template_seconds,
            memory_mib: args.template_memory,
        },
        worker_argument: super::RENDER_WORKER,
        max_calls: args.max_calls as usize,
    })
}
