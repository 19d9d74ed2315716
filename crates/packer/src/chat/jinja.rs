//! A chat template rendered as `transformers`' `apply_chat_template`
//! renders it: Jinja with `trim_blocks` and `lstrip_blocks`, its
//! `raise_exception` and `strftime_now`, its `tojson` (Python's
//! `json.dumps`: key order kept, `", "` and `": "`, non-ASCII written as
//! is), Python's string and dict methods, and Python's way of printing a
//! value (`None`, `True`, `['a', 1]`).
//!
//! What Jinja2 does and minijinja does not (a Python method `pycompat`
//! lacks) is an error naming the template's line: refused, never rendered
//! differently. `transformers`' own `{% generation %}` tag is read as the
//! block it is (the `literals` module).
//!
//! Where minijinja's defaults differ from Jinja2's, packer renders as
//! Jinja2 does or refuses:
//!
//! - numbers: a float prints as Python prints it (`1e+16`, `-0.0`), also
//!   a float written in the template; integers are read from the request
//!   as Python reads them (the `numbers` module);
//! - `a ~ b` and `join` join Python's `str()` of each item, and in a template that
//!   marks strings safe `a + b` escapes a string joined to a safe one, as
//!   Jinja2's `Markup` does (the `operators` module writes each as a call
//!   of a function here);
//! - a list joined to a list with `+` is a list (printed, `tojson`,
//!   `length`), not a generator;
//! - a string inside a printed list or dict, and `x|string` of one, is
//!   Python's `repr()` (the `python` module; a character whose printing
//!   depends on the Python version is refused);
//! - `x|string` of a list or dict is Python's `str()`, not JSON;
//! - `None` is not iterable (`is iterable` is false) and has no length,
//!   while an undefined value iterates as empty with length 0: each
//!   rendering with a `None` in its values is made again with every `None`
//!   replaced by a value that fails where Python's `None` raises, and a
//!   template that fails there (Jinja2 raises, so `transformers` refuses
//!   the request) or renders otherwise is refused;
//! - string literals are decoded with Python's escapes (the `literals`
//!   module).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use minijinja::value::{Kwargs, Object, ObjectRepr, Rest, ValueKind};
use minijinja::{ErrorKind, Output, State, Value};

use super::{literals, operators, python};
use crate::error::Error;

/// The name the template is kept under.
const NAME: &str = "chat_template";

/// How many instructions a rendering may run: far more than any chat
/// template needs for a conversation, and a bound on a hostile one.
const FUEL: u64 = 50_000_000;

/// What `raise_exception` puts before its message, to tell it from
/// minijinja's own errors.
const RAISED: &str = "\u{0}raised:";

/// A compiled template with its globals.
pub(super) struct Environment {
    environment: minijinja::Environment<'static>,
    source: String,
    /// Whether the template may mark a string safe (`safe`, `escape`).
    marks_safe: bool,
}

impl Environment {
    /// Compiles `source`; `globals` are the special tokens and the
    /// request's template arguments; `now` is what `strftime_now` formats
    /// (seconds since 1970, UTC).
    pub(super) fn new(
        source: String,
        globals: Vec<(String, Value)>,
        now: i64,
    ) -> Result<Environment, Error> {
        let mut environment = minijinja::Environment::new();
        environment.set_trim_blocks(true);
        environment.set_lstrip_blocks(true);
        environment.set_keep_trailing_newline(false);
        environment.set_fuel(Some(FUEL));
        environment
            .set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        environment.set_formatter(python_formatter);
        environment.add_filter("tojson", tojson);
        environment.add_filter("string", string);
        environment.add_filter("length", length);
        environment.add_filter("join", join_filter);
        environment.add_filter("count", length);
        // Jinja2's `select`, `reject`, `selectattr`, `rejectattr` and `map`
        // give nothing for `None` (they start with `if value:`), and give a
        // generator: iterated once, with no length, not JSON, printed as
        // its address (refused).
        environment.add_filter(
            "select",
            |state: &State, value: Value, test: Option<String>, args: Rest<Value>| {
                minijinja::filters::select(state, untrapped(value), test.map(Cow::Owned), args)
                    .map(generator)
            },
        );
        environment.add_filter(
            "reject",
            |state: &State, value: Value, test: Option<String>, args: Rest<Value>| {
                minijinja::filters::reject(state, untrapped(value), test.map(Cow::Owned), args)
                    .map(generator)
            },
        );
        environment.add_filter(
            "selectattr",
            |state: &State, value: Value, attr: String, test: Option<String>, args: Rest<Value>| {
                let value = untrapped(value);
                let test = test.map(Cow::Owned);
                minijinja::filters::selectattr(state, value, Cow::Owned(attr), test, args)
                    .map(generator)
            },
        );
        environment.add_filter(
            "rejectattr",
            |state: &State, value: Value, attr: String, test: Option<String>, args: Rest<Value>| {
                let value = untrapped(value);
                let test = test.map(Cow::Owned);
                minijinja::filters::rejectattr(state, value, Cow::Owned(attr), test, args)
                    .map(generator)
            },
        );
        environment.add_filter("map", |state: &State, value: Value, args: Rest<Value>| {
            minijinja::filters::map(state, untrapped(value), args).map(generator)
        });
        // Jinja2's `+` HTML-escapes a string joined to a safe one; minijinja
        // does not. A rendering made to check it marks safe strings so that
        // `+` fails on them.
        environment.add_filter("safe", |state: &State, value: String| {
            markup(value, state.lookup(SAFE_CHECK).is_some())
        });
        // markupsafe's `escape`: a `Markup` as it is, anything else its
        // `str()` escaped (`&#34;` and `&#39;`, `/` kept; minijinja's own
        // writes `&quot;`, `&#x27;` and `&#x2f;`).
        for name in ["escape", "e"] {
            environment.add_filter(name, |state: &State, value: &Value| {
                let (text, safe) = match string_of(value) {
                    Some(string) => string,
                    None => (python_str(value)?, false),
                };
                Ok::<_, minijinja::Error>(markup(
                    escaped(text, safe),
                    state.lookup(SAFE_CHECK).is_some(),
                ))
            });
        }
        // Jinja2's `number` is Python's `Number` (booleans too).
        environment.add_test("number", |value: &Value| {
            matches!(value.kind(), ValueKind::Number | ValueKind::Bool)
                || float_trap(value).is_some()
        });
        environment.add_test("float", |value: &Value| {
            (value.kind() == ValueKind::Number && !value.is_integer())
                || float_trap(value).is_some()
        });
        environment.add_test("iterable", is_iterable);
        environment.add_test("none", is_none);
        // minijinja's `debug()` prints the whole context; Jinja2 has no
        // such global (a template calling it fails there).
        environment.remove_global("debug");
        environment.add_function("raise_exception", raise_exception);
        environment.add_function("strftime_now", move |format: String| strftime(now, &format));
        for (name, value) in globals {
            environment.add_global(name, value);
        }
        environment.add_function(operators::JOIN, join);
        environment.add_function(operators::ADD, add);
        let bare: String = source.split_whitespace().collect();
        let marks_safe = ["safe", "escape", "|e|", "|e}", "|e)", "|e%", "|e-"]
            .iter()
            .any(|name| bare.contains(name));
        let compiled =
            literals::rewrite(&source).map_err(|refusal| Error::InvalidChatTemplate {
                problem: format!(
                    "has a string literal with {refusal}; packer renders templates as transformers \
                 does and refuses what it cannot render so"
                ),
            })?;
        let compiled = operators::rewrite(&compiled, marks_safe).map_err(|refusal| {
            Error::InvalidChatTemplate {
                problem: format!(
                    "has {refusal}; packer renders templates as transformers does and refuses \
                     what it cannot render so"
                ),
            }
        })?;
        environment
            .add_template_owned(NAME, compiled)
            .map_err(|e| template_error(&e, &source))?;
        Ok(Environment {
            environment,
            source,
            marks_safe,
        })
    }

    /// Renders the template with these variables.
    pub(super) fn render(
        &self,
        messages: Value,
        tools: Value,
        add_generation_prompt: bool,
        arguments: &[(String, Value)],
    ) -> Result<String, Error> {
        let template = self
            .environment
            .get_template(NAME)
            .map_err(|e| template_error(&e, &self.source))?;
        let mut context: Vec<(String, Value)> = arguments.to_vec();
        context.push(("messages".into(), messages));
        context.push(("tools".into(), tools));
        context.push(("documents".into(), Value::from(())));
        context.push((
            "add_generation_prompt".into(),
            Value::from(add_generation_prompt),
        ));
        let rendered = template
            .render(Value::from_iter(context.iter().cloned()))
            .map_err(|e| template_error(&e, &self.source))?;
        for trap in [Trap::None, Trap::Float] {
            if !context.iter().any(|(_, value)| holds(value, trap)) {
                continue;
            }
            let again = context
                .iter()
                .map(|(name, value)| (name.clone(), trapped(value, trap)));
            checked(trap, &rendered, template.render(Value::from_iter(again)))?;
        }
        if self.marks_safe {
            let again = context
                .iter()
                .cloned()
                .chain([(SAFE_CHECK.to_owned(), Value::from(true))]);
            checked(
                Trap::Safe,
                &rendered,
                template.render(Value::from_iter(again)),
            )?;
        }
        Ok(rendered)
    }
}

/// The first rendering's verdict, from the rendering made again with
/// `trap`'s values: the same text, or a refusal.
fn checked(
    trap: Trap,
    rendered: &str,
    again: Result<String, minijinja::Error>,
) -> Result<(), Error> {
    let unchecked = |what: &str| Error::InvalidChatTemplate {
        problem: format!(
            "treats {what} of the request in a way packer cannot check that it renders as Jinja2 \
             does (it joins it to text with `~`, compares it, or tests its type, say); packer \
             renders templates as transformers does and refuses what it cannot render so"
        ),
    };
    match (trap, again) {
        (_, Ok(again)) if again == rendered => Ok(()),
        (Trap::None, Ok(_)) => Err(unchecked("a None value")),
        (Trap::Float, _) => Err(unchecked("a float")),
        (Trap::Safe, _) => Err(Error::InvalidChatTemplate {
            problem: "joins a string marked safe (`|safe`, `|escape`) to another with `+`, or \
                      tests it, where Jinja2 HTML-escapes the other string (its `Markup`); \
                      packer renders templates as transformers does and refuses what it cannot \
                      render so"
                .into(),
        }),
        (Trap::None, Err(error)) => {
            let line = error
                .line()
                .map(|line| format!(" at line {line}"))
                .unwrap_or_default();
            Err(Error::InvalidChatTemplate {
                problem: format!(
                    "iterates over a None value, or takes its length{line} (a `tools` the \
                     request does not give is None, as transformers passes it); Jinja2 raises \
                     there, so transformers refuses this request too"
                ),
            })
        }
    }
}

/// Python's `None` where Python raises: not iterable, no length, printed
/// `None`, false, and `none` by the `none` test.
#[derive(Debug)]
struct NoneTrap;

impl Object for NoneTrap {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn is_true(self: &Arc<Self>) -> bool {
        false
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("None")
    }
}

fn is_trap(value: &Value) -> bool {
    value.downcast_object_ref::<NoneTrap>().is_some()
}

/// A Python generator over `items`: what one iteration takes, the next
/// does not see.
fn generator(items: Vec<Value>) -> Value {
    Value::from_object(Generator(Arc::new(std::sync::Mutex::new(
        items.into_iter(),
    ))))
}

/// What Jinja2's `select`, `map` and the like give: a generator. (A list
/// joined to a list with `+` is an iterable of minijinja's own, a list to
/// Jinja2.)
#[derive(Debug)]
struct Generator(Arc<std::sync::Mutex<std::vec::IntoIter<Value>>>);

impl Object for Generator {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Iterable
    }

    fn enumerate(self: &Arc<Self>) -> minijinja::value::Enumerator {
        let items = Arc::clone(&self.0);
        minijinja::value::Enumerator::Iter(Box::new(std::iter::from_fn(move || {
            items.lock().ok()?.next()
        })))
    }
}

fn is_generator(value: &Value) -> bool {
    value.downcast_object_ref::<Generator>().is_some()
}

/// A float of the request where minijinja's own printing would show: it
/// prints as Python prints it, so that a rendering that prints it with
/// minijinja's rules (`~`) differs from this one.
#[derive(Debug)]
struct FloatTrap(f64);

impl Object for FloatTrap {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn is_true(self: &Arc<Self>) -> bool {
        self.0 != 0.0
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&python_float(self.0))
    }
}

fn float_trap(value: &Value) -> Option<f64> {
    value.downcast_object_ref::<FloatTrap>().map(|trap| trap.0)
}

/// `None` for the trap (for a filter that takes `None` as Jinja2's does).
fn untrapped(value: Value) -> Value {
    if is_trap(&value) {
        Value::from(())
    } else {
        value
    }
}

/// Whether `value` is or holds a value that `trap` replaces.
fn holds(value: &Value, trap: Trap) -> bool {
    match value.kind() {
        ValueKind::Seq => value
            .try_iter()
            .into_iter()
            .flatten()
            .any(|item| holds(&item, trap)),
        ValueKind::Map => value
            .try_iter()
            .into_iter()
            .flatten()
            .any(|key| value.get_item(&key).is_ok_and(|item| holds(&item, trap))),
        _ => trap.replaces(value).is_some(),
    }
}

/// `value` with every value in it that `trap` replaces replaced.
fn trapped(value: &Value, trap: Trap) -> Value {
    match value.kind() {
        ValueKind::Seq => Value::from(
            value
                .try_iter()
                .into_iter()
                .flatten()
                .map(|item| trapped(&item, trap))
                .collect::<Vec<_>>(),
        ),
        ValueKind::Map => Value::from_iter(value.try_iter().into_iter().flatten().map(|key| {
            let item = value.get_item(&key).unwrap_or_default();
            (key, trapped(&item, trap))
        })),
        _ => trap.replaces(value).unwrap_or_else(|| value.clone()),
    }
}

/// Which values a second rendering replaces to find where minijinja and
/// Jinja2 part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trap {
    /// Every `None`, by a [`NoneTrap`].
    None,
    /// Every float, by a [`FloatTrap`].
    Float,
    /// No value: every string the template marks safe, by a [`SafeTrap`].
    Safe,
}

/// The context variable that asks `safe` and `escape` for a [`SafeTrap`].
const SAFE_CHECK: &str = "\u{0}packer:safe-check";

/// A string marked safe, as Jinja2's `Markup`: printed and joined with `~`
/// as itself, but failing with `+` (where `Markup` escapes the other
/// string) and not a string to the tests.
#[derive(Debug)]
struct SafeTrap(String);

impl Object for SafeTrap {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn is_true(self: &Arc<Self>) -> bool {
        !self.0.is_empty()
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Trap {
    fn replaces(self, value: &Value) -> Option<Value> {
        match (self, value.kind()) {
            (Trap::None, ValueKind::None) => Some(Value::from_object(NoneTrap)),
            (Trap::Float, ValueKind::Number) if !value.is_integer() => f64::try_from(value.clone())
                .ok()
                .map(|float| Value::from_object(FloatTrap(float))),
            _ => None,
        }
    }
}

/// Jinja2's `iterable` test: `None` is not iterable, an undefined value is
/// (empty).
fn is_iterable(value: &Value) -> bool {
    !value.is_none() && !is_trap(value) && value.try_iter().is_ok()
}

/// Jinja2's `none` test (the trap included).
fn is_none(value: &Value) -> bool {
    value.is_none() || is_trap(value)
}

/// Jinja2's `length` (and `count`): Python's `len()`, 0 for an undefined
/// value, an error for `None` and for what has no length.
fn length(value: &Value) -> Result<usize, minijinja::Error> {
    if value.is_undefined() {
        return Ok(0);
    }
    if value.kind() == ValueKind::Iterable && !is_generator(value) {
        return Ok(value.try_iter()?.count());
    }
    value.len().ok_or_else(|| {
        minijinja::Error::new(
            ErrorKind::InvalidOperation,
            format!("cannot calculate length of value of type {}", value.kind()),
        )
    })
}

/// Jinja2's `a ~ b`: Python's `str()` of each, joined.
fn join(left: &Value, right: &Value) -> Result<Value, minijinja::Error> {
    let mut joined = python_str(left)?;
    joined.push_str(&python_str(right)?);
    Ok(Value::from(joined))
}

/// Jinja2's `join` (without autoescape): `str(d).join(map(str, value))`,
/// so each item is Python's `str()` of it (`None`, `True`, `1e+16`).
fn join_filter(value: &Value, joiner: Option<Value>) -> Result<Value, minijinja::Error> {
    let joiner = match joiner {
        Some(joiner) => python_str(&joiner)?,
        None => String::new(),
    };
    if value.is_none() || is_trap(value) {
        return Err(minijinja::Error::new(
            ErrorKind::InvalidOperation,
            "cannot join None (Jinja2 raises: it is not iterable)",
        ));
    }
    let mut joined = String::new();
    for (index, item) in value.try_iter()?.enumerate() {
        if index > 0 {
            joined.push_str(&joiner);
        }
        joined.push_str(&python_str(&item)?);
    }
    Ok(Value::from(joined))
}

/// Python's `str()` of a value: the text of a string, as `string` gives it
/// otherwise.
fn python_str(value: &Value) -> Result<String, minijinja::Error> {
    Ok(match value.as_str() {
        Some(text) => text.to_owned(),
        None => string(value)?.to_string(),
    })
}

/// Jinja2's `a + b` in a template that marks strings safe: a `Markup`
/// joined to a string HTML-escapes the string (markupsafe's `escape`) and
/// stays safe; anything else is minijinja's `+`.
fn add(left: Value, right: Value) -> Result<Value, minijinja::Error> {
    let trapped = value_is_safe_trap(&left) || value_is_safe_trap(&right);
    match (string_of(&left), string_of(&right)) {
        (Some((left, left_safe)), Some((right, right_safe))) if left_safe || right_safe => {
            let mut joined = escaped(left, left_safe);
            joined.push_str(&escaped(right, right_safe));
            Ok(markup(joined, trapped))
        }
        _ if trapped || left.is_safe() || right.is_safe() => Err(minijinja::Error::new(
            ErrorKind::InvalidOperation,
            "a string marked safe added to what is not a string",
        )),
        _ => plain_add(left, right),
    }
}

/// The text of a string and whether it is marked safe (a [`SafeTrap`] is);
/// `None` for what is not a string.
fn string_of(value: &Value) -> Option<(String, bool)> {
    if let Some(trap) = value.downcast_object_ref::<SafeTrap>() {
        return Some((trap.0.clone(), true));
    }
    value
        .as_str()
        .map(|text| (text.to_owned(), value.is_safe()))
}

/// `text` marked safe, as Jinja2's `Markup`; in the rendering made to
/// check safe strings (`check`), a [`SafeTrap`].
fn markup(text: String, check: bool) -> Value {
    if check {
        Value::from_object(SafeTrap(text))
    } else {
        Value::from_safe_string(text)
    }
}

fn value_is_safe_trap(value: &Value) -> bool {
    value.downcast_object_ref::<SafeTrap>().is_some()
}

/// `text` as `Markup` holds it: as it is when it is safe, else escaped as
/// markupsafe escapes (`&`, `<`, `>`, `'`, `"`).
fn escaped(text: String, safe: bool) -> String {
    if safe {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            _ => out.push(c),
        }
    }
    out
}

/// minijinja's own `+`, by an expression of an environment of its own.
fn plain_add(left: Value, right: Value) -> Result<Value, minijinja::Error> {
    static PLAIN: std::sync::LazyLock<minijinja::Environment<'static>> =
        std::sync::LazyLock::new(minijinja::Environment::new);
    static SUM: std::sync::LazyLock<minijinja::Expression<'static, 'static>> =
        std::sync::LazyLock::new(|| PLAIN.compile_expression("a + b").expect("`a + b` compiles"));
    SUM.eval(minijinja::context! { a => left, b => right })
}

/// Jinja2's `string`: Python's `str()` (a list or dict with `repr()`
/// inside, not JSON), empty for an undefined value.
fn string(value: &Value) -> Result<Value, minijinja::Error> {
    Ok(match value.kind() {
        ValueKind::String => value.clone(),
        ValueKind::Undefined => Value::from(""),
        ValueKind::None
        | ValueKind::Bool
        | ValueKind::Number
        | ValueKind::Seq
        | ValueKind::Map
        | ValueKind::Iterable => Value::from(python_repr(value)?),
        _ if float_trap(value).is_some() => Value::from(python_repr(value)?),
        _ => Value::from(value.to_string()),
    })
}

/// A minijinja error as `invalid-chat-template`, naming the line: the
/// template's own words for `raise_exception` when they are written in the
/// template, else minijinja's kind of error (never text of the request).
fn template_error(error: &minijinja::Error, source: &str) -> Error {
    let line = error
        .line()
        .map(|line| format!(" at line {line}"))
        .unwrap_or_default();
    let detail = error.detail().unwrap_or_default();
    let problem = if let Some(message) = detail.strip_prefix(RAISED) {
        if !message.is_empty() && source.contains(message) {
            let shown: String = message.chars().take(200).collect();
            format!("raises an exception{line}: {}", shown_safely(&shown))
        } else {
            format!(
                "raises an exception{line} (its text is not shown: it holds text from the request)"
            )
        }
    } else if error.kind() == ErrorKind::SyntaxError {
        format!("does not parse{line}: {}", plain_detail(detail, source))
    } else {
        format!(
            "fails{line}: {}{}; packer renders templates as transformers does and refuses what \
             its Jinja engine cannot render",
            error.kind(),
            if detail.is_empty() {
                String::new()
            } else {
                format!(" ({})", plain_detail(detail, source))
            }
        )
    };
    Error::InvalidChatTemplate { problem }
}

/// minijinja's detail, cut short and safe to print, when all it quotes is
/// written in the template: a detail can quote a value (a message's text,
/// a document of the payload), and then it is not shown.
fn plain_detail(detail: &str, source: &str) -> String {
    let quoted_from_template = detail
        .split(['\'', '"', '`'])
        .skip(1)
        .step_by(2)
        .all(|quoted| source.contains(quoted));
    if !quoted_from_template {
        return "its details quote a value and are not shown".into();
    }
    let cut: String = detail.chars().take(160).collect();
    shown_safely(&cut)
}

/// Text from a template, as one line that cannot move a terminal's cursor
/// or start a line of its own (`error[...]` forged on a new line).
fn shown_safely(text: &str) -> String {
    crate::terminal::terminal_safe(text)
}

fn raise_exception(message: String) -> Result<Value, minijinja::Error> {
    Err(minijinja::Error::new(
        ErrorKind::InvalidOperation,
        format!("{RAISED}{message}"),
    ))
}

/// Printing a value as Jinja2 prints it: Python's `str()`.
fn python_formatter(
    out: &mut Output,
    state: &State,
    value: &Value,
) -> Result<(), minijinja::Error> {
    match value.kind() {
        ValueKind::Undefined => Ok(()),
        ValueKind::None
        | ValueKind::Bool
        | ValueKind::Seq
        | ValueKind::Map
        | ValueKind::Iterable => out
            .write_str(&python_repr(value)?)
            .map_err(|_| minijinja::Error::new(ErrorKind::WriteFailure, "cannot write")),
        ValueKind::Number if !value.is_integer() => out
            .write_str(&python_repr(value)?)
            .map_err(|_| minijinja::Error::new(ErrorKind::WriteFailure, "cannot write")),
        _ if float_trap(value).is_some() => out
            .write_str(&python_repr(value)?)
            .map_err(|_| minijinja::Error::new(ErrorKind::WriteFailure, "cannot write")),
        _ => minijinja::escape_formatter(out, state, value),
    }
}

/// A generator printed: Jinja2 prints its address in memory.
fn generator_printed() -> minijinja::Error {
    minijinja::Error::new(
        ErrorKind::InvalidOperation,
        "a generator printed (Jinja2 prints its address in memory)",
    )
}

/// Python's `repr()` of a value from JSON (a string inside a list, say).
fn python_repr(value: &Value) -> Result<String, minijinja::Error> {
    if let Some(float) = float_trap(value) {
        return Ok(python_float(float));
    }
    Ok(match value.kind() {
        ValueKind::Undefined | ValueKind::None => "None".into(),
        ValueKind::Bool => if value.is_true() { "True" } else { "False" }.into(),
        ValueKind::Number => match f64::try_from(value.clone()) {
            Ok(float) if !value.is_integer() => python_float(float),
            _ => value.to_string(),
        },
        ValueKind::String => {
            python::repr_string(value.as_str().unwrap_or_default()).map_err(|c| {
                minijinja::Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "U+{:04X} inside a printed list or dict: Python escapes it or not \
                         depending on its version",
                        c as u32
                    ),
                )
            })?
        }
        ValueKind::Iterable if is_generator(value) => return Err(generator_printed()),
        ValueKind::Seq | ValueKind::Iterable => {
            let mut items = Vec::new();
            for item in value.try_iter()? {
                items.push(python_repr(&item)?);
            }
            format!("[{}]", items.join(", "))
        }
        ValueKind::Map => {
            let mut items = Vec::new();
            for key in value.try_iter()? {
                let item = value.get_item(&key).unwrap_or_default();
                items.push(format!("{}: {}", python_repr(&key)?, python_repr(&item)?));
            }
            format!("{{{}}}", items.join(", "))
        }
        _ => value.to_string(),
    })
}

/// Python's `repr()` of a float: the shortest digits that read back,
/// written in fixed notation when the exponent is from -4 to 15, else as
/// `1e+16`.
pub(super) fn python_float(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("`{:e}` writes an e");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let whole = exponent as usize + 1;
            let (int, frac) = if digits.len() > whole {
                (digits[..whole].to_owned(), digits[whole..].to_owned())
            } else {
                (format!("{digits:0<whole$}"), "0".to_owned())
            };
            format!("{sign}{int}.{frac}")
        } else {
            let zeros = "0".repeat((-exponent - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{first}{rest}e{exponent_sign}{:02}", exponent.abs())
    }
}

/// `transformers`' `tojson`: `json.dumps(x, ensure_ascii=False, indent=...,
/// separators=..., sort_keys=...)`.
fn tojson(value: Value, kwargs: Kwargs) -> Result<Value, minijinja::Error> {
    let indent: Option<Value> = kwargs.get("indent")?;
    let separators: Option<Value> = kwargs.get("separators")?;
    let sort_keys: Option<bool> = kwargs.get("sort_keys")?;
    let ensure_ascii: Option<bool> = kwargs.get("ensure_ascii")?;
    kwargs.assert_all_used()?;
    let indent = match indent {
        None => None,
        Some(v) if v.is_none() => None,
        Some(v) => match v.kind() {
            ValueKind::Number => Some(" ".repeat(i64::try_from(v).unwrap_or(0).max(0) as usize)),
            ValueKind::String => Some(v.as_str().unwrap_or_default().to_owned()),
            _ => {
                return Err(minijinja::Error::new(
                    ErrorKind::InvalidOperation,
                    "tojson's indent must be a number or a string",
                ));
            }
        },
    };
    let (item, key) = match separators {
        Some(v) if !v.is_none() => {
            let parts: Vec<String> = v
                .try_iter()?
                .map(|p| p.as_str().unwrap_or_default().to_owned())
                .collect();
            match parts.as_slice() {
                [item, key] => (item.clone(), key.clone()),
                _ => {
                    return Err(minijinja::Error::new(
                        ErrorKind::InvalidOperation,
                        "tojson's separators must be two strings",
                    ));
                }
            }
        }
        _ if indent.is_some() => (",".to_owned(), ": ".to_owned()),
        _ => (", ".to_owned(), ": ".to_owned()),
    };
    let style = Json {
        indent,
        item,
        key,
        sort_keys: sort_keys.unwrap_or(false),
        ensure_ascii: ensure_ascii.unwrap_or(false),
    };
    let mut out = String::new();
    style.write(&value, 0, &mut out)?;
    Ok(Value::from(out))
}

/// How `json.dumps` was asked to write.
struct Json {
    indent: Option<String>,
    item: String,
    key: String,
    sort_keys: bool,
    ensure_ascii: bool,
}

impl Json {
    fn write(&self, value: &Value, depth: usize, out: &mut String) -> Result<(), minijinja::Error> {
        match value.kind() {
            ValueKind::None => out.push_str("null"),
            _ if is_trap(value) => out.push_str("null"),
            _ if float_trap(value).is_some() => {
                out.push_str(&python_float(float_trap(value).unwrap_or_default()));
            }
            ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
            ValueKind::Number => {
                if value.is_integer() {
                    out.push_str(&value.to_string());
                } else {
                    out.push_str(&python_float(f64::try_from(value.clone())?));
                }
            }
            ValueKind::String => self.string(value.as_str().unwrap_or_default(), out),
            ValueKind::Seq | ValueKind::Iterable if !is_generator(value) => {
                let items: Vec<Value> = value.try_iter()?.collect();
                if items.is_empty() {
                    out.push_str("[]");
                    return Ok(());
                }
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&self.item);
                    }
                    self.newline(depth + 1, out);
                    self.write(item, depth + 1, out)?;
                }
                self.newline(depth, out);
                out.push(']');
            }
            ValueKind::Map => {
                let mut keys: Vec<Value> = value.try_iter()?.collect();
                if keys.is_empty() {
                    out.push_str("{}");
                    return Ok(());
                }
                if self.sort_keys {
                    keys.sort_by_key(|key| key.to_string());
                }
                out.push('{');
                for (i, key) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&self.item);
                    }
                    self.newline(depth + 1, out);
                    match key.as_str() {
                        Some(text) => self.string(text, out),
                        None => self.string(&key.to_string(), out),
                    }
                    out.push_str(&self.key);
                    self.write(&value.get_item(key)?, depth + 1, out)?;
                }
                self.newline(depth, out);
                out.push('}');
            }
            _ => {
                return Err(minijinja::Error::new(
                    ErrorKind::InvalidOperation,
                    "tojson met a value that is not JSON (an undefined value, say)",
                ));
            }
        }
        Ok(())
    }

    fn newline(&self, depth: usize, out: &mut String) {
        if let Some(indent) = &self.indent {
            out.push('\n');
            for _ in 0..depth {
                out.push_str(indent);
            }
        }
    }

    /// A JSON string as Python writes it.
    fn string(&self, text: &str, out: &mut String) {
        out.push('"');
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c if self.ensure_ascii && !c.is_ascii() => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        let _ = write!(out, "\\u{unit:04x}");
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
}

/// C's `strftime` for the conversions chat templates use, at `now`
/// (seconds since 1970, UTC); others are left as written.
fn strftime(now: i64, format: &str) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    const DAYS: [&str; 7] = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    let days = now.div_euclid(86_400);
    let seconds = now.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let weekday = (days + 3).rem_euclid(7) as usize; // 1970-01-01 was a Thursday.
    let (hour, minute, second) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let day_of_year = days - days_from_civil(year, 1, 1) + 1;
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = chars.next();
        let unpadded = spec == Some('-');
        if unpadded {
            spec = chars.next();
        }
        let number = |n: i64, width: usize| {
            if unpadded {
                n.to_string()
            } else {
                format!("{n:0width$}")
            }
        };
        match spec {
            Some('Y') => out.push_str(&year.to_string()),
            Some('y') => out.push_str(&number(year.rem_euclid(100), 2)),
            Some('m') => out.push_str(&number(month, 2)),
            Some('d') => out.push_str(&number(day, 2)),
            Some('e') => out.push_str(&format!("{day:>2}")),
            Some('H') => out.push_str(&number(hour, 2)),
            Some('I') => out.push_str(&number((hour + 11) % 12 + 1, 2)),
            Some('M') => out.push_str(&number(minute, 2)),
            Some('S') => out.push_str(&number(second, 2)),
            Some('p') => out.push_str(if hour < 12 { "AM" } else { "PM" }),
            Some('j') => out.push_str(&number(day_of_year, 3)),
            Some('B') => out.push_str(MONTHS[(month - 1) as usize]),
            Some('b') | Some('h') => out.push_str(&MONTHS[(month - 1) as usize][..3]),
            Some('A') => out.push_str(DAYS[weekday]),
            Some('a') => out.push_str(&DAYS[weekday][..3]),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                if unpadded {
                    out.push('-');
                }
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

/// The (year, month, day) of a day counted from 1970-01-01 (Howard
/// Hinnant's algorithm).
pub(super) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The day, counted from 1970-01-01, of a date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_prints_them() {
        let cases = [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (123456.789, "123456.789"),
            (-2.5, "-2.5"),
            (1e15, "1000000000000000.0"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (0.0, "0.0"),
        ];
        for (value, python) in cases {
            assert_eq!(python_float(value), python, "{value}");
        }
    }

    #[test]
    fn dates_are_the_civil_calendar() {
        // 2026-12-03 12:34:56 UTC, a Thursday.
        let now = 1_796_301_296;
        assert_eq!(strftime(now, "%Y-%m-%d"), "2026-12-03");
        assert_eq!(strftime(now, "%d %b %Y"), "03 Dec 2026");
        assert_eq!(
            strftime(now, "%-d %B %Y, %A %H:%M:%S %j"),
            "3 December 2026, Thursday 12:34:56 337"
        );
        assert_eq!(strftime(0, "%Y-%m-%d %a"), "1970-01-01 Thu");
        assert_eq!(strftime(951_782_400, "%Y-%m-%d"), "2000-02-29");
    }

    fn render(source: &str, context: Value) -> Result<String, Error> {
        let environment = Environment::new(source.into(), Vec::new(), 0)?;
        let template = environment.environment.get_template(NAME).unwrap();
        template
            .render(context)
            .map_err(|e| template_error(&e, &environment.source))
    }

    #[test]
    fn tojson_writes_as_python_json_dumps() {
        let value: Value = serde_json::from_str(
            r#"{"b": 1, "a": [1.0, "x<y>&'é", null, true], "c": {}, "d": []}"#,
        )
        .unwrap();
        let context = Value::from_iter([("v", value)]);
        assert_eq!(
            render("{{ v|tojson }}", context.clone()).unwrap(),
            r#"{"b": 1, "a": [1.0, "x<y>&'é", null, true], "c": {}, "d": []}"#
        );
        assert_eq!(
            render("{{ v|tojson(indent=2) }}", context.clone()).unwrap(),
            "{\n  \"b\": 1,\n  \"a\": [\n    1.0,\n    \"x<y>&'é\",\n    null,\n    true\n  ],\n  \"c\": {},\n  \"d\": []\n}"
        );
        assert_eq!(
            render("{{ v|tojson(sort_keys=true, ensure_ascii=true) }}", context).unwrap(),
            r#"{"a": [1.0, "x<y>&'\u00e9", null, true], "b": 1, "c": {}, "d": []}"#
        );
    }

    #[test]
    fn values_print_as_python_prints_them() {
        let value: Value = serde_json::from_str(r#"[null, true, "it's", 2, 0.5]"#).unwrap();
        let context = Value::from_iter([("v", value)]);
        assert_eq!(
            render("{{ v }} {{ v[0] }} {{ v[1] }} {{ v[4] }}", context).unwrap(),
            r#"[None, True, "it's", 2, 0.5] None True 0.5"#
        );
    }

    #[test]
    fn blocks_are_trimmed_as_transformers_sets_jinja() {
        let source = "{% for m in ms %}\n    {{ m }}\n{% endfor %}\n";
        let context = Value::from_iter([("ms", Value::from(vec!["a", "b"]))]);
        assert_eq!(render(source, context).unwrap(), "    a\n    b\n");
    }

    #[test]
    fn python_methods_and_exceptions() {
        let context = Value::from_iter([("s", Value::from("  Hi there  "))]);
        assert_eq!(
            render(
                "{{ s.strip() }}|{{ s.lstrip() }}|{{ s.startswith('  H') }}|{{ s.split()[-1] }}",
                context.clone()
            )
            .unwrap(),
            "Hi there|Hi there  |True|there"
        );
        let error = render(
            "line one\n{{ raise_exception('Roles must alternate') }}",
            context.clone(),
        )
        .unwrap_err();
        assert_eq!(error.code(), "invalid-chat-template");
        assert_eq!(
            error.to_string(),
            "the chat template raises an exception at line 2: Roles must alternate"
        );
        // A message built from the request's text is not shown.
        let error = render("{{ raise_exception('bad: ' + s) }}", context.clone()).unwrap_err();
        assert!(!error.to_string().contains("Hi there"), "{error}");
        // transformers' own block renders its body; a tag it does not add
        // is refused.
        assert_eq!(
            render("a{% generation %}x{% endgeneration %}b", context.clone()).unwrap(),
            "axb"
        );
        let error = render("{% generations %}x{% endgenerations %}", context).unwrap_err();
        assert!(
            error.to_string().contains("does not parse at line 1"),
            "{error}"
        );
    }
}
