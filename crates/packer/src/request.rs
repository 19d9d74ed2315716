//! A request as every front end receives it: names and numbers, each
//! absent when not given, turned into the library's [`Request`] in one
//! place.
//!
//! The command line, the MCP server and the Python package each read their
//! own arguments (flags, JSON arguments, keywords) into [`RequestNames`]
//! and call [`RequestNames::build`]: which encoding a model means, what the
//! whole-budget shorthand stands for, which settings go together and the
//! defaults of the omission notes and excerpts are decided here alone. A
//! refusal names the settings through [`Names`](crate::error::Names), so
//! each front end says it in its own argument names. A tokenizer file is
//! read by the front end and set on the built request.

use crate::error::{Error, RequestProblem, Setting};
use crate::pack::{
    DEFAULT_OUTLINE_SHARE_PERCENT, ExcerptOptions, OutlineOptions, QUERY_OUTLINE_SHARE_PERCENT,
    QueryOptions,
};
use crate::{Encoding, Envelope, Options, PartialBudget, Policy, Request};

/// The settings of a request by name and value, as a front end was given
/// them; `None` (or `false`) where it was not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestNames {
    /// The encoding's name (`cl100k_base`, ...).
    pub encoding: Option<String>,
    /// A model, counted with its encoding (see [`crate::model_encoding`]).
    pub model: Option<String>,
    /// Whether a tokenizer file is given; the front end reads it and sets
    /// it on the built request. It excludes an encoding and a model.
    pub tokenizer: bool,
    /// The policy's name (default: [`Policy::default`]).
    pub policy: Option<String>,
    /// The layout's name (default: `default_envelope`).
    pub envelope: Option<String>,
    /// The layout when none is named (a front end's default differs for a
    /// directory).
    pub default_envelope: Envelope,
    /// The whole-budget shorthand: `contextTokens` N with every
    /// reservation 0. It excludes the four values below.
    pub budget: Option<u64>,
    /// `contextTokens`.
    pub context_tokens: Option<u64>,
    /// `reservedOtherInputTokens`.
    pub reserved_other_input_tokens: Option<u64>,
    /// `reservedOutputTokens`.
    pub reserved_output_tokens: Option<u64>,
    /// `safetyTokens`.
    pub safety_tokens: Option<u64>,
    /// List the documents left out inside the payload.
    pub note_omissions: bool,
    /// With `note_omissions`: the most documents listed (default
    /// [`DEFAULT_NOTE_OMISSIONS_MAX`](crate::envelope::DEFAULT_NOTE_OMISSIONS_MAX)).
    pub note_omissions_max: Option<usize>,
    /// Try an excerpt around these terms when a whole document does not fit.
    pub excerpt_query: Option<String>,
    /// With `excerpt_query`: lines kept on each side of a matching line
    /// (default [`DEFAULT_CONTEXT`](crate::focus::DEFAULT_CONTEXT)).
    pub excerpt_context: Option<usize>,
    /// With `excerpt_query`: the most characters of an excerpt (default
    /// [`DEFAULT_MAX_CHARS`](crate::focus::DEFAULT_MAX_CHARS)).
    pub excerpt_max_chars: Option<usize>,
    /// Put every document into as few windows as possible (SPEC §3.2).
    pub windows: bool,
    /// Send outlines of the source files that do not fit whole.
    pub outline: bool,
    /// With `outline`: the percentage of the budget whole documents fill
    /// first (default [`DEFAULT_OUTLINE_SHARE_PERCENT`]).
    pub outline_share: Option<u64>,
    /// What the pack is for (SPEC §3.3): documents are tried in their
    /// relevance to it.
    pub query: Option<String>,
}

impl RequestNames {
    /// The request these settings make, or the first thing wrong with
    /// them, checked in this order: the policy's name, a tokenizer file
    /// with an encoding or a model, the layout's name, a cap on the
    /// omission notes without them, an encoding with a model, the
    /// encoding's name, the model, the whole budget with a separate budget
    /// value, excerpt settings without a query, windows with omission notes,
    /// excerpts or outlines, an outline share without outlines or over 100.
    /// Its `tokenizer` is `None`.
    pub fn build(&self) -> Result<Request, Error> {
        let policy = match &self.policy {
            None => Policy::default(),
            Some(name) => name
                .parse()
                .map_err(|_| unknown_name(Setting::PolicyName, Policy::names().to_vec()))?,
        };
        if self.tokenizer && (self.encoding.is_some() || self.model.is_some()) {
            return Err(refused(RequestProblem::TokenizerAndEncoding));
        }
        let envelope = match &self.envelope {
            None => self.default_envelope,
            Some(name) => name
                .parse()
                .map_err(|_| unknown_name(Setting::EnvelopeName, Envelope::names().to_vec()))?,
        };
        if self.note_omissions_max.is_some() && !self.note_omissions {
            return Err(refused(RequestProblem::NoteOmissionsMaxWithoutNotes));
        }
        let encoding = self.encoding()?;
        let budget = self.budget()?;
        if self.excerpt_query.is_none()
            && (self.excerpt_context.is_some() || self.excerpt_max_chars.is_some())
        {
            return Err(refused(RequestProblem::ExcerptWithoutQuery));
        }
        let query = match &self.query {
            None => None,
            Some(text) if !crate::rank::has_terms(text) => {
                return Err(refused(RequestProblem::QueryWithoutTerms));
            }
            Some(_) if policy == Policy::MaxFill => {
                return Err(refused(RequestProblem::QueryWithMaxFill));
            }
            Some(text) => Some(QueryOptions { text: text.clone() }),
        };
        // A query fills with outlines too: the most relevant documents
        // whole, then the next ones outlined, in relevance order.
        let outline = match (self.outline || query.is_some(), self.outline_share) {
            (false, Some(_)) => return Err(refused(RequestProblem::OutlineShareWithoutOutline)),
            (_, Some(share)) if share > 100 => {
                return Err(refused(RequestProblem::OutlineShareOver100 { share }));
            }
            (false, None) => None,
            (true, share) => {
                let default = if query.is_some() {
                    QUERY_OUTLINE_SHARE_PERCENT
                } else {
                    DEFAULT_OUTLINE_SHARE_PERCENT
                };
                Some(OutlineOptions {
                    share_percent: share.map_or(default, |share| share as u8),
                    in_order: query.is_some(),
                })
            }
        };
        Ok(Request {
            encoding,
            tokenizer: None,
            budget,
            options: Options {
                policy,
                envelope,
                note_omissions: self.note_omissions,
                note_omissions_max: self
                    .note_omissions_max
                    .unwrap_or(crate::envelope::DEFAULT_NOTE_OMISSIONS_MAX),
                excerpt: self.excerpt_query.clone().map(|query| ExcerptOptions {
                    query,
                    context: self
                        .excerpt_context
                        .unwrap_or(crate::focus::DEFAULT_CONTEXT),
                    max_chars: self
                        .excerpt_max_chars
                        .unwrap_or(crate::focus::DEFAULT_MAX_CHARS),
                }),
                windows: self.windows,
                outline,
                query,
                cancel: crate::Cancel::default(),
                progress: crate::Progress::default(),
            },
            chat: None,
        })
    }

    /// The encoding named or implied by the model, `None` when neither is
    /// given (nor a tokenizer file, which excludes both). What a counting
    /// front end needs without a whole request.
    pub fn encoding(&self) -> Result<Option<Encoding>, Error> {
        if self.tokenizer && (self.encoding.is_some() || self.model.is_some()) {
            return Err(refused(RequestProblem::TokenizerAndEncoding));
        }
        match (&self.encoding, &self.model) {
            (Some(_), Some(_)) => Err(refused(RequestProblem::EncodingAndModel)),
            (Some(name), None) => name.parse().map(Some).map_err(|_| {
                unknown_name(
                    Setting::EncodingName,
                    Encoding::ALL.map(Encoding::name).to_vec(),
                )
            }),
            (None, Some(model)) => crate::model_encoding(model).map(Some),
            (None, None) => Ok(None),
        }
    }

    /// The four budget values: the whole-budget shorthand, or each value
    /// given.
    fn budget(&self) -> Result<PartialBudget, Error> {
        let values = PartialBudget {
            context_tokens: self.context_tokens,
            reserved_other_input_tokens: self.reserved_other_input_tokens,
            reserved_output_tokens: self.reserved_output_tokens,
            safety_tokens: self.safety_tokens,
        };
        match self.budget {
            None => Ok(values),
            Some(_) if values != PartialBudget::default() => {
                Err(refused(RequestProblem::BudgetAndBudgetValues))
            }
            Some(tokens) => Ok(PartialBudget {
                context_tokens: Some(tokens),
                reserved_other_input_tokens: Some(0),
                reserved_output_tokens: Some(0),
                safety_tokens: Some(0),
            }),
        }
    }
}

fn refused(problem: RequestProblem) -> Error {
    Error::InvalidRequest { problem }
}

fn unknown_name(setting: Setting, known: Vec<&'static str>) -> Error {
    refused(RequestProblem::UnknownName { setting, known })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{CommandLine, EXIT_USAGE, Names};

    fn refusal(names: RequestNames) -> String {
        let error = names.build().unwrap_err();
        assert_eq!(error.code(), "usage");
        assert_eq!(error.exit_status(), EXIT_USAGE);
        error.to_string()
    }

    #[test]
    fn nothing_given_is_the_default_request() {
        let request = RequestNames::default().build().unwrap();
        assert_eq!(request, Request::default());
    }

    #[test]
    fn names_become_the_library_values() {
        let request = RequestNames {
            encoding: Some("p50k_base".into()),
            policy: Some("max-fill".into()),
            envelope: Some("xml".into()),
            note_omissions: true,
            note_omissions_max: Some(3),
            excerpt_query: Some("exit code".into()),
            excerpt_max_chars: Some(100),
            context_tokens: Some(500),
            safety_tokens: Some(5),
            ..RequestNames::default()
        }
        .build()
        .unwrap();
        assert_eq!(request.encoding, Some(Encoding::P50kBase));
        assert_eq!(request.options.policy, Policy::MaxFill);
        assert_eq!(request.options.envelope, Envelope::Xml);
        assert!(request.options.note_omissions);
        assert_eq!(request.options.note_omissions_max, 3);
        assert_eq!(
            request.options.excerpt,
            Some(ExcerptOptions {
                query: "exit code".into(),
                context: crate::focus::DEFAULT_CONTEXT,
                max_chars: 100,
            })
        );
        assert_eq!(
            request.budget,
            PartialBudget {
                context_tokens: Some(500),
                safety_tokens: Some(5),
                ..PartialBudget::default()
            }
        );
        assert_eq!(request.tokenizer, None);
    }

    #[test]
    fn the_defaults_fill_what_is_not_given() {
        let request = RequestNames {
            default_envelope: Envelope::Markdown,
            note_omissions: true,
            excerpt_query: Some("limits".into()),
            ..RequestNames::default()
        }
        .build()
        .unwrap();
        assert_eq!(request.options.policy, Policy::default());
        assert_eq!(request.options.envelope, Envelope::Markdown);
        assert_eq!(
            request.options.note_omissions_max,
            crate::envelope::DEFAULT_NOTE_OMISSIONS_MAX
        );
        let excerpt = request.options.excerpt.unwrap();
        assert_eq!(excerpt.context, crate::focus::DEFAULT_CONTEXT);
        assert_eq!(excerpt.max_chars, crate::focus::DEFAULT_MAX_CHARS);
        // A named layout wins over the default.
        let request = RequestNames {
            default_envelope: Envelope::Markdown,
            envelope: Some("json".into()),
            ..RequestNames::default()
        }
        .build()
        .unwrap();
        assert_eq!(request.options.envelope, Envelope::Json);
    }

    #[test]
    fn a_model_counts_with_its_encoding() {
        let names = RequestNames {
            model: Some("GPT-4o".into()),
            ..RequestNames::default()
        };
        assert_eq!(names.encoding(), Ok(Some(Encoding::O200kBase)));
        assert_eq!(names.build().unwrap().encoding, Some(Encoding::O200kBase));
        let unknown = RequestNames {
            model: Some("no-such-model".into()),
            ..RequestNames::default()
        };
        assert_eq!(unknown.build().unwrap_err().code(), "unknown-model");
    }

    /// Claude and Gemini (SPEC §2.2.1): `unknown-model` saying that no
    /// exact offline count exists and where the exact count is, the margin
    /// named as each front end spells it; never another model's encoding.
    #[test]
    fn models_without_a_public_tokenizer_are_refused_with_guidance() {
        for (model, provider, endpoint) in [
            (
                "claude-sonnet-4",
                crate::Provider::Anthropic,
                "count_tokens",
            ),
            (
                "CLAUDE-OPUS-4-1",
                crate::Provider::Anthropic,
                "count_tokens",
            ),
            (
                "anthropic/claude-3.7-sonnet",
                crate::Provider::Anthropic,
                "count_tokens",
            ),
            ("gemini-2.5-flash", crate::Provider::Google, "countTokens"),
            (
                "models/gemini-1.5-pro",
                crate::Provider::Google,
                "countTokens",
            ),
        ] {
            let names = RequestNames {
                model: Some(model.into()),
                ..RequestNames::default()
            };
            let error = names.build().unwrap_err();
            assert_eq!(error, Error::ModelWithoutPublicTokenizer { provider });
            assert_eq!(error.code(), "unknown-model");
            let message = error.to_string();
            assert!(message.starts_with("no exact offline token count exists"));
            assert!(message.contains(endpoint), "{message}");
            assert!(message.contains("--safety-tokens"), "{message}");
            assert!(
                error
                    .message(&Keywords)
                    .contains("keep a margin with --safety-tokens")
            );
            assert_eq!(crate::model_encoding(model), Err(error));
        }
        // Gemma, an open model, is not refused as a closed one.
        assert_eq!(crate::Provider::of_model("gemma-3-27b"), None);
    }

    #[test]
    fn the_whole_budget_is_the_context_with_every_reservation_zero() {
        let request = RequestNames {
            budget: Some(8000),
            ..RequestNames::default()
        }
        .build()
        .unwrap();
        assert_eq!(
            request.budget,
            PartialBudget {
                context_tokens: Some(8000),
                reserved_other_input_tokens: Some(0),
                reserved_output_tokens: Some(0),
                safety_tokens: Some(0),
            }
        );
    }

    #[test]
    fn each_refusal_names_its_settings() {
        let cases = [
            (
                RequestNames {
                    encoding: Some("gpt2".into()),
                    ..RequestNames::default()
                },
                "--encoding must be one of cl100k_base, o200k_base, o200k_harmony, p50k_base, \
                 p50k_edit, r50k_base",
            ),
            (
                RequestNames {
                    policy: Some("random".into()),
                    ..RequestNames::default()
                },
                "--policy must be one of in-order, priority, max-fill",
            ),
            (
                RequestNames {
                    envelope: Some("yaml".into()),
                    ..RequestNames::default()
                },
                "--envelope must be one of json, xml, markdown",
            ),
            (
                RequestNames {
                    encoding: Some("cl100k_base".into()),
                    model: Some("gpt-4".into()),
                    ..RequestNames::default()
                },
                "give --encoding or --model, not both",
            ),
            (
                RequestNames {
                    tokenizer: true,
                    model: Some("gpt-4".into()),
                    ..RequestNames::default()
                },
                "give at most one of --tokenizer, --encoding and --model",
            ),
            (
                RequestNames {
                    budget: Some(10),
                    safety_tokens: Some(1),
                    ..RequestNames::default()
                },
                "give --budget or the separate budget flags, not both",
            ),
            (
                RequestNames {
                    note_omissions_max: Some(3),
                    ..RequestNames::default()
                },
                "--note-omissions-max needs --note-omissions",
            ),
            (
                RequestNames {
                    excerpt_context: Some(3),
                    ..RequestNames::default()
                },
                "--excerpt-context and --excerpt-max-chars need --excerpt-query",
            ),
            (
                RequestNames {
                    outline_share: Some(30),
                    ..RequestNames::default()
                },
                "--outline-share needs --outline",
            ),
            (
                RequestNames {
                    outline: true,
                    outline_share: Some(101),
                    ..RequestNames::default()
                },
                "--outline-share is a percentage of the budget from 0 to 100, not 101",
            ),
        ];
        for (names, message) in cases {
            assert_eq!(refusal(names), message);
        }
    }

    /// Keywords, as a front end other than the command line names them.
    struct Keywords;

    impl Names for Keywords {
        fn name(&self, setting: Setting) -> &'static str {
            match setting {
                Setting::PolicyName => "policy",
                Setting::OneCounter => "tokenizer or encoding/model, not both",
                _ => CommandLine.name(setting),
            }
        }
    }

    #[test]
    fn a_front_end_spells_the_settings_its_own_way() {
        let error = RequestNames {
            policy: Some("random".into()),
            ..RequestNames::default()
        }
        .build()
        .unwrap_err();
        assert_eq!(
            error.message(&Keywords),
            "policy must be one of in-order, priority, max-fill"
        );
        let error = RequestNames {
            tokenizer: true,
            encoding: Some("cl100k_base".into()),
            ..RequestNames::default()
        }
        .encoding()
        .unwrap_err();
        assert_eq!(
            error.message(&Keywords),
            "give tokenizer or encoding/model, not both"
        );
    }

    #[test]
    fn the_first_refusal_is_said_in_a_fixed_order() {
        // The policy before the counters, the counters before the layout,
        // the layout before the notes, the notes before the encoding, the
        // encoding before the budget, the budget before the excerpt.
        let mut names = RequestNames {
            policy: Some("random".into()),
            tokenizer: true,
            encoding: Some("gpt2".into()),
            envelope: Some("yaml".into()),
            note_omissions_max: Some(1),
            budget: Some(1),
            context_tokens: Some(1),
            excerpt_context: Some(1),
            ..RequestNames::default()
        };
        let mut seen = Vec::new();
        while let Err(error) = names.build() {
            let message = error.to_string();
            seen.push(message.split(' ').next().unwrap_or("").to_owned());
            if message.starts_with("--policy") {
                names.policy = None;
            } else if message.starts_with("give at most one") {
                names.tokenizer = false;
            } else if message.starts_with("--envelope") {
                names.envelope = None;
            } else if message.starts_with("--note-omissions-max") {
                names.note_omissions_max = None;
            } else if message.starts_with("--encoding") {
                names.encoding = None;
            } else if message.starts_with("give --budget") {
                names.budget = None;
            } else {
                names.excerpt_context = None;
            }
        }
        assert_eq!(
            seen,
            [
                "--policy",
                "give",
                "--envelope",
                "--note-omissions-max",
                "--encoding",
                "give",
                "--excerpt-context"
            ]
        );
    }
}
