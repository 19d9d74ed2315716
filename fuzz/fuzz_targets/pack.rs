//! Arbitrary bytes through read -> parse -> validate -> pack, under every
//! policy and in every envelope: either a clean error or a plan that keeps
//! every guarantee. One input in three counts with the fixture's encoding,
//! the others with a committed tokenizer file (every family); one input in
//! five (by length) also asks for outlines (documents whose ids end in a
//! source file's extension).
#![no_main]

#[path = "tokenizers.rs"]
mod tokenizers;

use libfuzzer_sys::fuzz_target;
use packer::pack::{ExcerptOptions, OutlineOptions};
use packer::{Envelope, Fixture, Limits, Options, Policy, Request, settings};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_input_bytes: 64 * 1024,
        max_documents: 32,
    };
    let Ok(fixture) = Fixture::from_bytes(data, &limits) else {
        return;
    };
    let tokenizer = (data.len() % 3 != 0).then(|| tokenizers::file(data.len() / 3));
    let base = Request {
        tokenizer,
        ..Request::default()
    };
    let Ok(resolved) = settings(&fixture, &base) else {
        return;
    };
    let counter = resolved.counter();
    let cases = Policy::ALL
        .into_iter()
        .flat_map(|policy| Envelope::ALL.map(|envelope| (policy, envelope)));
    for (policy, envelope) in cases {
        for (note_omissions, note_omissions_max) in [(false, 50), (true, 50), (true, 2)] {
            for excerpt in [None, Some("the, 1")] {
                let request = Request {
                    options: Options {
                        policy,
                        envelope,
                        note_omissions,
                        note_omissions_max,
                        excerpt: excerpt.map(|query| ExcerptOptions {
                            query: query.into(),
                            context: 1,
                            max_chars: 200,
                        }),
                        windows: false,
                        outline: (data.len() % 5 == 0).then(OutlineOptions::default),
                        ..Options::default()
                    },
                    ..base.clone()
                };
                let Ok(outcome) = packer::pack(&fixture, &request) else {
                    continue;
                };
                let plan = &outcome.plan;
                assert!(plan.used_tokens as u64 <= plan.available_tokens);
                assert_eq!(plan.used_tokens, counter.count(&plan.payload_text));
                assert_eq!(plan.decisions.len(), fixture.documents.len());
                assert_eq!(
                    plan.order.len() + plan.skipped.len(),
                    fixture.documents.len()
                );
            }
        }
    }
});
