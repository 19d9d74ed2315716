//! Arbitrary bytes through read -> parse -> validate -> pack, under every
//! policy: either a clean error or a plan that keeps every guarantee.
#![no_main]

use libfuzzer_sys::fuzz_target;
use packer::pack::ExcerptOptions;
use packer::{Counter, Fixture, Limits, Options, Policy, Request, settings};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_input_bytes: 64 * 1024,
        max_documents: 32,
    };
    let Ok(fixture) = Fixture::from_bytes(data, &limits) else {
        return;
    };
    let Ok(resolved) = settings(&fixture, &Request::default()) else {
        return;
    };
    let counter = Counter::new(resolved.encoding);
    for policy in Policy::ALL {
        for note_omissions in [false, true] {
            for excerpt in [None, Some("the, 1")] {
                let request = Request {
                    options: Options {
                        policy,
                        note_omissions,
                        excerpt: excerpt.map(|query| ExcerptOptions {
                            query: query.into(),
                            context: 1,
                            max_chars: 200,
                        }),
                    },
                    ..Request::default()
                };
                let Ok(outcome) = packer::pack(&fixture, &request) else {
                    continue;
                };
                let plan = &outcome.plan;
                assert!(plan.used_tokens as u64 <= plan.available_tokens);
                assert_eq!(plan.used_tokens, counter.count(&plan.payload_text));
                assert_eq!(plan.decisions.len(), fixture.documents.len());
                assert_eq!(plan.order.len() + plan.skipped.len(), fixture.documents.len());
            }
        }
    }
});
