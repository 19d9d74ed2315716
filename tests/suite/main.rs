//! The black-box tests, one binary: each module drives the built `packer`
//! (or the library) as its file's name says. One binary links once where
//! twelve linked the library each (`tests/memory.rs`, which installs its
//! own allocator, stays apart).

mod common;

mod attacks;
mod batch;
mod cli;
mod collect;
mod harmony;
mod hostile;
mod max_fill;
mod mcp;
mod properties;
mod query;
mod readme;
mod reference;
mod secrets;
mod templates;
mod tokenizers;
mod untrusted;
