//! The longer messages of the error variants, each written in one place
//! (the variants' `#[error]` attributes call them).

use super::names::{Names, Setting};
use super::problem::{
    BudgetProblem, IdProblem, PathProblem, Problem, SchemaPlace, Shape, UrlProblem,
};

pub(super) fn schema_subject(place: &SchemaPlace, names: &dyn Names) -> String {
    match place {
        SchemaPlace::At(position) => format!("{} {position}", names.name(Setting::FixtureAt)),
        SchemaPlace::Path(path) => path.clone(),
    }
}

pub(super) fn budget_message(field: &str, problem: BudgetProblem) -> String {
    match problem {
        BudgetProblem::Missing => "the fixture has no budget; add one, or give --budget N (the payload may use N tokens) \
             or all four budget flags (--context-tokens, --reserved-other-input-tokens, --reserved-output-tokens, --safety-tokens)"
            .into(),
        BudgetProblem::MissingForDirectory => "packing a directory needs a budget: give --budget N \
             (the payload may use N tokens), or --context-tokens N with the reservations you need, \
             or write budget = N in the directory's packer.toml (packer init DIR writes one)"
            .into(),
        BudgetProblem::NotAnObject => "budget must be an object of four token counts".into(),
        BudgetProblem::MissingValue => {
            format!("budget.{field} is missing; add it or give its flag")
        }
        BudgetProblem::NotAnInteger => {
            format!("budget.{field} must be a whole number from 0 to 9007199254740991")
        }
    }
}

pub(super) fn read_failed_message(path: &str, kind: std::io::ErrorKind) -> String {
    use std::io::ErrorKind;
    match kind {
        ErrorKind::NotFound => format!("no such file: {path}"),
        ErrorKind::PermissionDenied => format!("permission denied: cannot read {path}"),
        ErrorKind::IsADirectory => format!("{path} is a directory, not a file"),
        kind => format!("cannot read {path} ({kind})"),
    }
}

pub(super) fn too_large_message(limit: u64, size: Option<u64>) -> String {
    match size {
        Some(size) => format!(
            "the input is {size} bytes, more than the limit of {limit}; raise --max-input-bytes to accept it"
        ),
        None => format!(
            "the input is larger than the limit of {limit} bytes; raise --max-input-bytes to accept it"
        ),
    }
}

pub(super) fn id_message(index: usize, problem: IdProblem) -> String {
    match problem {
        IdProblem::Missing => format!("documents[{index}] has no field 'id'"),
        IdProblem::NotAString => format!("documents[{index}].id must be a string"),
        IdProblem::Empty => format!("documents[{index}].id is empty"),
        IdProblem::ControlCharacter => {
            format!("documents[{index}].id contains a control character (ids may not)")
        }
    }
}

pub(super) fn url_message(index: usize, problem: UrlProblem) -> String {
    let rule = "it must be an absolute http or https URL with a host";
    match problem {
        UrlProblem::Missing => format!(
            "documents[{index}] has no field 'url' (a web page's address) or 'path' (a file's \
             path relative to the directory it was collected from)"
        ),
        UrlProblem::NotAString => format!("documents[{index}].url must be a string; {rule}"),
        UrlProblem::Whitespace => format!(
            "documents[{index}].url contains whitespace; write a space as %20 (the url is sent exactly as given)"
        ),
        UrlProblem::ControlCharacter => {
            format!("documents[{index}].url contains a control character")
        }
        UrlProblem::NotAbsolute => format!("documents[{index}].url is not absolute; {rule}"),
        UrlProblem::Scheme => {
            format!("documents[{index}].url has a scheme other than http or https; {rule}")
        }
        UrlProblem::NoHost => format!("documents[{index}].url has no host; {rule}"),
    }
}

pub(super) fn config_message(file: &str, line: usize, column: usize, problem: &str) -> String {
    if line == 0 {
        format!("{file}: {problem}")
    } else {
        format!("{file} at line {line} column {column}: {problem}")
    }
}

pub(super) fn path_message(index: usize, problem: PathProblem) -> String {
    let rule = "it must be a relative path with / between its parts, such as src/lib.rs";
    match problem {
        PathProblem::NotAString => format!("documents[{index}].path must be a string; {rule}"),
        PathProblem::WithUrl => {
            format!("documents[{index}] has both a url and a path; give one of them")
        }
        PathProblem::Characters => format!(
            "documents[{index}].path is empty, starts or ends with whitespace, or contains a \
             control character or a backslash; {rule}"
        ),
        PathProblem::Absolute => format!("documents[{index}].path is absolute; {rule}"),
        PathProblem::NotNormal => {
            format!("documents[{index}].path has an empty, . or .. part; {rule}")
        }
    }
}

pub(super) fn field_message(
    index: usize,
    field: &str,
    shape: Shape,
    wrong_type: &str,
    invalid: &str,
) -> String {
    match shape {
        Shape::Missing => format!("documents[{index}] has no field '{field}'"),
        Shape::WrongType => format!("documents[{index}].{field} {wrong_type}"),
        Shape::Invalid => format!("documents[{index}].{field} {invalid}"),
    }
}

pub(super) fn problems_message(problems: &[Problem], more: usize, names: &dyn Names) -> String {
    let mut message = problems
        .first()
        .map(|problem| problem.message_with(names))
        .unwrap_or_default();
    let rest = problems.len().saturating_sub(1) + more;
    if rest > 0 {
        message.push_str(&format!(
            " (and {rest} more problem{})",
            if rest == 1 { "" } else { "s" }
        ));
    }
    message
}

pub(super) fn unknown_model_message(nearest: &[&str], names: &dyn Names) -> String {
    let mut message = format!(
        "the model has no known encoding; give {} instead (see `packer encodings`)",
        names.name(Setting::Encoding)
    );
    if !nearest.is_empty() {
        message.push_str(&format!("; nearest known models: {}", nearest.join(", ")));
    }
    message
}

/// The message of `empty-envelope-does-not-fit`, in one place.
pub(super) fn empty_envelope_message(
    needed: usize,
    available: u64,
    without_notes: Option<usize>,
    names: &dyn Names,
) -> String {
    let short = needed as u64 - available.min(needed as u64);
    match without_notes {
        Some(bare) if bare as u64 <= available => format!(
            "the omission note does not fit: the empty envelope with its note needs {needed} tokens \
             but only {available} are available (short by {short}); without {} it \
             needs {bare}; lower {} to list fewer documents",
            names.name(Setting::NoteOmissions),
            names.name(Setting::NoteOmissionsMax)
        ),
        _ => format!(
            "the empty envelope needs {needed} tokens but only {available} are available \
             (short by {short}); raise the budget"
        ),
    }
}

pub(super) fn request_message(required: Option<&[usize]>, needed: usize, available: u64) -> String {
    let short = needed as u64 - available.min(needed as u64);
    match required {
        None => format!(
            "the request does not fit even with an empty payload: rendered with the empty \
             envelope it needs {needed} tokens but only {available} are available (short by \
             {short}); raise the context, lower the output reservation, or shorten the messages"
        ),
        Some(indices) => format!(
            "required documents do not fit: documents[{}]; with every required document the \
             request needs {needed} tokens but only {available} are available (short by \
             {short}); raise the budget or drop `required`",
            join_indices(indices)
        ),
    }
}

pub(super) fn required_message(indices: &[usize], needed: usize, available: u64) -> String {
    let short = needed as u64 - available.min(needed as u64);
    format!(
        "required documents do not fit: documents[{}]; with every required document the payload \
         needs {needed} tokens but only {available} are available (short by {short}); raise the \
         budget or drop `required`",
        join_indices(indices)
    )
}

pub(super) fn join_indices(indices: &[usize]) -> String {
    indices
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join("], documents[")
}
