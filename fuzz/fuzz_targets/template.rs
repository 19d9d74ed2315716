//! Arbitrary chat templates, rendered as `--request` renders them: in a
//! worker process (`$PACKER_BIN __render-worker`, the debug build by
//! default) with limits on its time and memory. Either the rendering or a
//! coded error (`invalid-chat-template`, `chat-template-limit`), never a
//! panic in this process and never a hang past the limit.
#![no_main]

use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use packer::chat::render::Renderers;
use packer::chat::{ChatRequest, ChatTemplate, Framing};
use packer::{Counter, Encoding};
use packer_files::render::{TemplateLimits, WorkerRenderers};

static WORKERS: LazyLock<Arc<dyn Renderers>> = LazyLock::new(|| {
    let binary = std::env::var_os("PACKER_BIN")
        .unwrap_or_else(|| "../target/debug/packer".into());
    Arc::new(WorkerRenderers::new(
        vec![binary, "__render-worker".into()],
        TemplateLimits {
            seconds: 5,
            memory_mib: 512,
        },
    ))
});

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(template) = ChatTemplate::from_bytes(source.as_bytes()) else {
        return;
    };
    let request = ChatRequest::from_bytes(
        br#"{"messages": [{"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Docs: {{packer:documents}}"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}"#,
    )
    .expect("a valid request");
    let isolation = Some(WORKERS.clone());
    match Framing::new(
        request,
        &template,
        Counter::new(Encoding::O200kHarmony),
        0,
        &isolation,
        &packer::Cancel::default(),
    ) {
        Ok(framing) => {
            if let Err(error) = framing.render("{\"documents\":[]}") {
                assert!(
                    matches!(error.code(), "invalid-chat-template" | "chat-template-limit"),
                    "{}",
                    error.code()
                );
            }
        }
        Err(error) => assert!(
            matches!(error.code(), "invalid-chat-template" | "chat-template-limit"),
            "{}",
            error.code()
        ),
    }
});
