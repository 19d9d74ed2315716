//! The token budget: the context window and its three reservations, and the
//! checked arithmetic that turns them into `availableTokens`.

use serde::Serialize;

use crate::error::{BudgetProblem, Error};

/// The largest budget value accepted: 2^53-1, the largest integer every JSON
/// reader represents exactly.
pub const MAX_BUDGET_VALUE: u64 = (1 << 53) - 1;

/// The four budget values (SPEC §1), serialized with their schema names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    /// The model's whole context window.
    pub context_tokens: u64,
    /// Instructions, history, tool definitions: everything else sent.
    pub reserved_other_input_tokens: u64,
    /// Room kept for the model's answer.
    pub reserved_output_tokens: u64,
    /// A margin for anything not counted.
    pub safety_tokens: u64,
}

impl Budget {
    /// `contextTokens - reservedOtherInputTokens - reservedOutputTokens - safetyTokens`,
    /// or `invalid-budget` when the reservations exceed the context.
    pub fn available_tokens(&self) -> Result<u64, Error> {
        self.context_tokens
            .checked_sub(self.reserved_other_input_tokens)
            .and_then(|rest| rest.checked_sub(self.reserved_output_tokens))
            .and_then(|rest| rest.checked_sub(self.safety_tokens))
            .ok_or(Error::ReservationsExceedContext {
                context: self.context_tokens,
                reserved: self
                    .reserved_other_input_tokens
                    .saturating_add(self.reserved_output_tokens)
                    .saturating_add(self.safety_tokens),
            })
    }
}

/// Budget values that may each be missing: from a fixture, or from flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PartialBudget {
    /// `contextTokens`, if given.
    pub context_tokens: Option<u64>,
    /// `reservedOtherInputTokens`, if given.
    pub reserved_other_input_tokens: Option<u64>,
    /// `reservedOutputTokens`, if given.
    pub reserved_output_tokens: Option<u64>,
    /// `safetyTokens`, if given.
    pub safety_tokens: Option<u64>,
}

/// The schema names of the four values, in their order.
pub(crate) const FIELDS: [&str; 4] = [
    "contextTokens",
    "reservedOtherInputTokens",
    "reservedOutputTokens",
    "safetyTokens",
];

impl PartialBudget {
    /// Each value of `overrides` that is given replaces this one.
    pub fn overridden_by(self, overrides: PartialBudget) -> PartialBudget {
        PartialBudget {
            context_tokens: overrides.context_tokens.or(self.context_tokens),
            reserved_other_input_tokens: overrides
                .reserved_other_input_tokens
                .or(self.reserved_other_input_tokens),
            reserved_output_tokens: overrides
                .reserved_output_tokens
                .or(self.reserved_output_tokens),
            safety_tokens: overrides.safety_tokens.or(self.safety_tokens),
        }
    }

    /// The complete budget, or `invalid-budget` naming the first missing value.
    pub fn complete(self, fixture_has_budget: bool) -> Result<Budget, Error> {
        let values = [
            self.context_tokens,
            self.reserved_other_input_tokens,
            self.reserved_output_tokens,
            self.safety_tokens,
        ];
        if let Some(missing) = values.iter().position(Option::is_none) {
            let problem = if fixture_has_budget {
                BudgetProblem::MissingValue
            } else {
                BudgetProblem::Missing
            };
            return Err(Error::InvalidBudget {
                field: FIELDS[missing],
                problem,
            });
        }
        let [context, other, output, safety] = values.map(Option::unwrap_or_default);
        let budget = Budget {
            context_tokens: context,
            reserved_other_input_tokens: other,
            reserved_output_tokens: output,
            safety_tokens: safety,
        };
        budget.available_tokens()?;
        Ok(budget)
    }

    pub(crate) fn set(&mut self, field: usize, value: u64) {
        let slot = match field {
            0 => &mut self.context_tokens,
            1 => &mut self.reserved_other_input_tokens,
            2 => &mut self.reserved_output_tokens,
            _ => &mut self.safety_tokens,
        };
        *slot = Some(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(values: [u64; 4]) -> PartialBudget {
        let mut budget = PartialBudget::default();
        for (field, value) in values.into_iter().enumerate() {
            budget.set(field, value);
        }
        budget
    }

    #[test]
    fn available_tokens_subtract_every_reservation() {
        let budget = full([256, 64, 64, 16]).complete(true).unwrap();
        assert_eq!(budget.available_tokens(), Ok(112));
    }

    #[test]
    fn reservations_above_the_context_are_an_invalid_budget() {
        let error = full([100, 50, 50, 1]).complete(true).unwrap_err();
        assert_eq!(error.code(), "invalid-budget");
        assert_eq!(
            error.to_string(),
            "the reservations add up to 101 tokens, more than contextTokens 100 (by 1): no tokens \
             would be available; lower a reservation or raise --context-tokens"
        );
        // No overflow on the largest values either.
        let error = full([MAX_BUDGET_VALUE, MAX_BUDGET_VALUE, MAX_BUDGET_VALUE, 0])
            .complete(true)
            .unwrap_err();
        assert_eq!(error.code(), "invalid-budget");
    }

    #[test]
    fn flags_override_the_fixture_value_by_value() {
        let fixture = full([256, 64, 64, 16]);
        let overrides = PartialBudget {
            context_tokens: Some(1000),
            ..PartialBudget::default()
        };
        let budget = fixture.overridden_by(overrides).complete(true).unwrap();
        assert_eq!(budget.context_tokens, 1000);
        assert_eq!(budget.safety_tokens, 16);
    }

    #[test]
    fn a_missing_value_is_named() {
        let mut budget = full([256, 64, 64, 16]);
        budget.reserved_output_tokens = None;
        assert_eq!(
            budget.complete(true).unwrap_err(),
            Error::InvalidBudget {
                field: "reservedOutputTokens",
                problem: BudgetProblem::MissingValue
            }
        );
        assert_eq!(
            PartialBudget::default()
                .complete(false)
                .unwrap_err()
                .to_string(),
            "the fixture has no budget; add one, or give --budget N (the payload may use N tokens) \
             or all four budget flags (--context-tokens, --reserved-other-input-tokens, --reserved-output-tokens, --safety-tokens)"
        );
    }
}
