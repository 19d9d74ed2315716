//! A collection as a validated fixture, and packed, with the `--tree`
//! document marking what the pack outlined or left out.

use serde::Serialize;

use packer::budget::PartialBudget;
use packer::error::Error;
use packer::fixture::{Document, Fixture, Format, Limits, Source};

use crate::{CollectedDocument, Collection, TREE_ID, tree};

/// The fixture JSON: budget values given, then the documents.
pub fn fixture_json(collection: &Collection, budget: &PartialBudget) -> String {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Budget {
        #[serde(skip_serializing_if = "Option::is_none")]
        context_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reserved_other_input_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reserved_output_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        safety_tokens: Option<u64>,
    }
    #[derive(Serialize)]
    struct Fixture<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        budget: Option<Budget>,
        documents: &'a [CollectedDocument],
    }
    let given = *budget != PartialBudget::default();
    let fixture = Fixture {
        budget: given.then_some(Budget {
            context_tokens: budget.context_tokens,
            reserved_other_input_tokens: budget.reserved_other_input_tokens,
            reserved_output_tokens: budget.reserved_output_tokens,
            safety_tokens: budget.safety_tokens,
        }),
        documents: &collection.documents,
    };
    let mut text = serde_json::to_string_pretty(&fixture).unwrap_or_default();
    text.push('\n');
    text
}

/// The collection as a validated [`Fixture`] (no budget: the request gives
/// it): the documents as they are when each passes the checks of
/// `packer pack -` ([`Fixture::from_documents`]), else through the same
/// JSON and the same checks as `packer pack -`, with limits sized to the
/// collection (its own limits were applied while collecting), so that the
/// error says which document and where.
pub fn fixture(collection: &Collection) -> Result<Fixture, Error> {
    if let Some(fixture) = direct(collection) {
        return Ok(fixture);
    }
    through_json(collection)
}

/// The collection's documents as a fixture without their JSON, when every
/// one passes the checks.
fn direct(collection: &Collection) -> Option<Fixture> {
    let documents = collection
        .documents
        .iter()
        .enumerate()
        .map(|(index, document)| {
            let source = match (&document.url, &document.path) {
                (Some(url), None) => Source::Url(url.clone()),
                (None, Some(path)) => Source::Path(path.clone()),
                _ => return None,
            };
            let format = match document.format {
                "markdown" => Format::Markdown,
                "text" => Format::Text,
                _ => return None,
            };
            (!document.truncated).then_some(())?;
            Some(Document {
                index,
                id: document.id.clone(),
                source,
                format,
                content: document.content.clone(),
                priority: i32::try_from(document.priority).ok()?,
                required: document.required,
            })
        })
        .collect::<Option<Vec<Document>>>()?;
    Fixture::from_documents(documents)
}

/// The collection through its fixture JSON and `packer pack -`'s checks.
fn through_json(collection: &Collection) -> Result<Fixture, Error> {
    let json = fixture_json(collection, &PartialBudget::default());
    let limits = Limits {
        max_input_bytes: json.len() as u64,
        max_documents: collection.documents.len(),
    };
    Fixture::from_bytes(json.as_bytes(), &limits)
}

/// How many times [`pack`] packs again to make the `--tree` marks agree
/// with the selection before it gives the tree without marks.
const MARKING_ROUNDS: usize = 4;

/// Packs a collection with `request`: the fixture it makes, and the pack.
///
/// With outlines and a `--tree` document, the tree marks each file that is
/// outlined (` [outline]`) or left out (` [omitted]`) in that same pack:
/// the marks change the tree's count and so possibly the selection, so the
/// collection is packed again with the marks of the last pack until they
/// agree (at most `MARKING_ROUNDS` (4) times); when they never agree, or the
/// marked tree does not fit, the tree has no marks (and says nothing it
/// cannot stand behind). Every pack is exact; the one returned is the one
/// its tree describes.
pub fn pack(
    collection: &Collection,
    request: &packer::Request,
) -> Result<(Fixture, Result<packer::Outcome, packer::Failure>), Error> {
    let mut fixture = fixture(collection)?;
    let first = packer::pack(&fixture, request);
    let tree = fixture.documents.iter().position(|d| d.id == TREE_ID);
    let (Some(tree), Some(_), Ok(unmarked)) = (tree, request.options.outline, &first) else {
        return Ok((fixture, first));
    };
    let plain = fixture.documents[tree].content.clone();
    let mut marks = tree_marks(&fixture, unmarked);
    for _ in 0..MARKING_ROUNDS {
        fixture.documents[tree].content = marked_tree(&fixture, tree, &marks);
        let Ok(outcome) = packer::pack(&fixture, request) else {
            break;
        };
        let now = tree_marks(&fixture, &outcome);
        if now == marks {
            return Ok((fixture, Ok(outcome)));
        }
        marks = now;
    }
    fixture.documents[tree].content = plain;
    Ok((fixture, first))
}

/// Each document's mark in `outcome`: ` [outline]`, ` [omitted]` or none.
fn tree_marks(fixture: &Fixture, outcome: &packer::Outcome) -> Vec<Option<&'static str>> {
    debug_assert_eq!(fixture.documents.len(), outcome.plan.decisions.len());
    outcome
        .plan
        .decisions
        .iter()
        .map(|decision| match (decision.selected, decision.reason) {
            (true, packer::Reason::OutlineFits) => Some(" [outline]"),
            (true, _) => None,
            (false, _) => Some(" [omitted]"),
        })
        .collect()
}

/// The tree document of `fixture` (at index `tree`) with `marks`.
fn marked_tree(fixture: &Fixture, tree: usize, marks: &[Option<&'static str>]) -> String {
    let mut files: Vec<(&str, Option<&str>)> = fixture
        .documents
        .iter()
        .zip(marks)
        .enumerate()
        .filter(|(index, _)| *index != tree)
        .map(|(_, (document, mark))| (document.id.as_str(), *mark))
        .collect();
    files.sort_unstable_by(|a, b| a.0.cmp(b.0));
    tree::render_marked(&files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collected(id: &str, content: &str) -> CollectedDocument {
        CollectedDocument {
            id: id.to_owned(),
            url: None,
            path: Some(id.to_owned()),
            format: if id.ends_with(".md") {
                "markdown"
            } else {
                "text"
            },
            content: content.to_owned(),
            truncated: false,
            priority: 0,
            required: false,
        }
    }

    #[test]
    fn the_direct_fixture_is_the_one_its_json_reads_as() {
        let mut collection = Collection {
            documents: vec![
                collected("README.md", "# Title\n\nText \u{1F600} \"quoted\"\t\\\n"),
                collected("src/lib.rs", "pub fn f() {}\r\n\u{7}\n"),
            ],
            ..Collection::default()
        };
        collection.documents[1].priority = -7;
        collection.documents[0].url = Some("https://example.com/a/README.md".to_owned());
        collection.documents[0].path = None;
        collection.documents[0].required = true;
        let direct = direct(&collection).expect("valid documents");
        assert_eq!(Ok(direct), through_json(&collection));
    }

    #[test]
    fn a_document_the_checks_refuse_goes_through_the_json_and_its_error() {
        let mut collection = Collection {
            documents: vec![collected("a.txt", "x"), collected("a.txt", "y")],
            ..Collection::default()
        };
        assert!(direct(&collection).is_none());
        assert_eq!(fixture(&collection), through_json(&collection));
        collection.documents = vec![collected("a.txt", " \n")];
        assert!(direct(&collection).is_none());
        collection.documents = vec![collected("a.txt", "x")];
        collection.documents[0].priority = 1001;
        assert!(direct(&collection).is_none());
        collection.documents[0].priority = 0;
        collection.documents[0].path = Some("../a.txt".to_owned());
        assert!(direct(&collection).is_none());
    }
}
