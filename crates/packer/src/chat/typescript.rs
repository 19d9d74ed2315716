//! Function tools written as openai-harmony writes them in a developer
//! message: `## functions`, then `namespace functions { ... }` with each
//! tool's description as `//` lines and its JSON-schema parameters as a
//! TypeScript-like type (`type NAME = (_: {...}) => any;`).
//!
//! The schema's words, as the library reads them: `type` (a name or a list
//! of names; `integer` is `number`), `properties` (in the order given) and
//! `required`, `items`, `enum` (strings), `oneOf` (each variant on its own
//! ` | ` line), `nullable`, and the comments `title`, `description`,
//! `examples` (strings) and `default` (a string in quotes unless the schema
//! is an enum; other values as compact JSON). Anything else is `any`.

/// The `# Tools` section for these functions (each a tool's `function`
/// object: `name`, `description`, `parameters`).
pub(super) fn tools_section(functions: &[Json]) -> String {
    let mut lines = vec![
        "## functions\n".to_owned(),
        "namespace functions {\n".to_owned(),
    ];
    for function in functions {
        let name = function
            .get("name")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let description = function
            .get("description")
            .and_then(Json::as_str)
            .unwrap_or_default();
        for line in description.lines() {
            lines.push(format!("// {line}"));
        }
        match function.get("parameters") {
            Some(parameters @ Json::Object(_)) => {
                lines.push(format!(
                    "type {name} = (_: {}) => any;\n",
                    schema(parameters, "")
                ));
            }
            _ => lines.push(format!("type {name} = () => any;\n")),
        }
    }
    lines.push("} // namespace functions".to_owned());
    format!("# Tools\n\n{}", lines.join("\n"))
}

/// Refuses a default the library would print through a float: a fraction,
/// an exponent, or an integer beyond 64 bits (JSON's text and the number
/// vLLM hands on may print otherwise).
pub(super) fn check_defaults(value: &Json) -> Result<(), String> {
    match value {
        Json::Object(map) => {
            if let Some((_, default)) = map.iter().find(|(key, _)| key == "default") {
                floats(default)?;
            }
            map.iter().try_for_each(|(_, v)| check_defaults(v))
        }
        Json::Array(items) => items.iter().try_for_each(check_defaults),
        _ => Ok(()),
    }
}

fn floats(value: &Json) -> Result<(), String> {
    match value {
        Json::Number(number) if number.is_f64() => Err(
            "with a default that is a fraction or an integer beyond 64 bits; openai-harmony \
             prints it as a float, which packer does not render"
                .into(),
        ),
        Json::Object(map) => map.iter().try_for_each(|(_, v)| floats(v)),
        Json::Array(items) => items.iter().try_for_each(floats),
        _ => Ok(()),
    }
}

/// A copy of `value` with every string (keys too) passed through `mark`.
pub(super) fn mark(value: &Json, mark_text: &dyn Fn(&str) -> String) -> Json {
    match value {
        Json::String(text) => Json::String(mark_text(text)),
        Json::Array(items) => Json::Array(items.iter().map(|v| mark(v, mark_text)).collect()),
        Json::Object(map) => Json::Object(
            map.iter()
                .map(|(key, v)| (mark_text(key), mark(v, mark_text)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_enum(schema: &Json) -> bool {
    schema
        .get("enum")
        .and_then(Json::as_array)
        .is_some_and(|values| !values.is_empty())
}

fn nullable(schema: &Json) -> bool {
    schema.get("nullable").and_then(Json::as_bool) == Some(true)
}

/// `// default: ...`'s value: a string quoted unless `schema` is an enum.
fn default_text(schema: &Json, default: &Json) -> String {
    match default.as_str() {
        Some(text) if !is_enum(schema) => format!("\"{text}\""),
        Some(text) => text.to_owned(),
        None => default.compact(),
    }
}

/// A variant of a `oneOf`, with ` | null` when nullable.
fn variant_type(variant: &Json, indent: &str) -> String {
    let mut text = schema(variant, &format!("{indent}   "));
    if nullable(variant) && !text.contains("null") {
        text.push_str(" | null");
    }
    text
}

/// The TypeScript-like type of a JSON schema, at `indent`.
fn schema(value: &Json, indent: &str) -> String {
    if let Some(variants) = value.get("oneOf").and_then(Json::as_array) {
        let mut out = String::new();
        for variant in variants {
            out.push_str(&format!("\n{indent} | "));
            out.push_str(&variant_type(variant, indent));
            let mut comments = vec![];
            if let Some(description) = variant.get("description").and_then(Json::as_str) {
                comments.push(description.to_owned());
            }
            if let Some(default) = variant.get("default") {
                comments.push(format!("default: {}", default_text(variant, default)));
            }
            if !comments.is_empty() {
                out.push_str(&format!(" // {}", comments.join(" ")));
            }
        }
        return out;
    }
    if let Some(types) = value.get("type").and_then(Json::as_array) {
        let names: Vec<&str> = types
            .iter()
            .filter_map(Json::as_str)
            .map(|name| if name == "integer" { "number" } else { name })
            .collect();
        if !names.is_empty() {
            return names.join(" | ");
        }
    }
    match value.get("type").and_then(Json::as_str) {
        Some("object") => object(value, indent),
        Some("string") => {
            let values: Vec<String> = value
                .get("enum")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
                .map(|text| format!("\"{text}\""))
                .collect();
            if values.is_empty() {
                "string".into()
            } else {
                values.join(" | ")
            }
        }
        Some("number" | "integer") => "number".into(),
        Some("boolean") => "boolean".into(),
        Some("array") => match value.get("items") {
            Some(items) => format!("{}[]", schema(items, indent)),
            None => "Array<any>".into(),
        },
        _ => "any".into(),
    }
}

fn object(value: &Json, indent: &str) -> String {
    let mut out = String::new();
    if let Some(description) = value.get("description").and_then(Json::as_str) {
        out.push_str(&format!("{indent}// {description}\n"));
    }
    out.push_str("{\n");
    let required: Vec<&str> = value
        .get("required")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .collect();
    let properties = value.get("properties").and_then(Json::as_object);
    for (key, property) in properties.into_iter().flatten() {
        let optional = if required.contains(&key.as_str()) {
            ""
        } else {
            "?"
        };
        if let Some(title) = property.get("title").and_then(Json::as_str) {
            out.push_str(&format!("{indent}// {title}\n{indent}//\n"));
        }
        let one_of = property.get("oneOf");
        let description = property.get("description").and_then(Json::as_str);
        if one_of.is_none()
            && let Some(description) = description
        {
            out.push_str(&format!("{indent}// {description}\n"));
        }
        if let Some(examples) = property.get("examples").and_then(Json::as_array)
            && !examples.is_empty()
        {
            out.push_str(&format!("{indent}// Examples:\n"));
            for example in examples.iter().filter_map(Json::as_str) {
                out.push_str(&format!("{indent}// - \"{example}\"\n"));
            }
        }
        if let Some(variants) = one_of.and_then(Json::as_array) {
            out.push_str(&one_of_property(
                property,
                variants,
                key,
                optional,
                description,
                indent,
            ));
            continue;
        }
        out.push_str(&format!("{indent}{key}{optional}: "));
        let mut text = schema(property, &format!("{indent}    "));
        if nullable(property) && !text.contains("null") {
            text.push_str(" | null");
        }
        out.push_str(&text);
        out.push(',');
        if one_of.is_none()
            && let Some(default) = property.get("default")
        {
            out.push_str(&format!(" // default: {}", default_text(property, default)));
        }
        out.push('\n');
    }
    out.push_str(&format!("{indent}}}"));
    out
}

/// A property whose schema is a `oneOf`: its comments above, then each
/// variant on a ` | ` line.
fn one_of_property(
    property: &Json,
    variants: &[Json],
    key: &str,
    optional: &str,
    description: Option<&str>,
    indent: &str,
) -> String {
    let mut out = String::new();
    let first_says_it = description.is_some()
        && variants
            .first()
            .and_then(|first| first.get("description"))
            .and_then(Json::as_str)
            == description;
    let mut above = false;
    if !first_says_it && let Some(description) = description {
        out.push_str(&format!("{indent}// {description}\n"));
        above = true;
    }
    if let Some(default) = property.get("default") {
        out.push_str(&format!(
            "{indent}// default: {}\n",
            default_text(property, default)
        ));
    }
    out.push_str(&format!("{indent}{key}{optional}:\n"));
    for (index, variant) in variants.iter().enumerate() {
        out.push_str(&format!("{indent} | "));
        out.push_str(&variant_type(variant, indent));
        let mut comments = vec![];
        if !(index == 0 && above)
            && let Some(own) = variant.get("description").and_then(Json::as_str)
            && Some(own) != description
        {
            comments.push(own.to_owned());
        }
        if let Some(default) = variant.get("default") {
            comments.push(format!("default: {}", default_text(variant, default)));
        }
        if !comments.is_empty() {
            out.push_str(&format!(" // {}", comments.join(" ")));
        }
        out.push('\n');
    }
    out.push_str(&format!("{indent},\n"));
    out
}

/// JSON as the library holds a tool (serde_json with `preserve_order`):
/// objects keep their keys' order; a key given twice keeps its first place
/// and its last value, as Python's `json` hands it on.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub(super) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    fn as_object(&self) -> Option<&[(String, Json)]> {
        match self {
            Json::Object(pairs) => Some(pairs),
            _ => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(value) => Some(*value),
            _ => None,
        }
    }

    /// Compact JSON, as serde_json writes it.
    fn compact(&self) -> String {
        match self {
            Json::Null => "null".into(),
            Json::Bool(value) => value.to_string(),
            Json::Number(number) => number.to_string(),
            Json::String(text) => serde_json::to_string(text).unwrap_or_default(),
            Json::Array(items) => {
                let items: Vec<String> = items.iter().map(Json::compact).collect();
                format!("[{}]", items.join(","))
            }
            Json::Object(pairs) => {
                let pairs: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| {
                        format!(
                            "{}:{}",
                            serde_json::to_string(k).unwrap_or_default(),
                            v.compact()
                        )
                    })
                    .collect();
                format!("{{{}}}", pairs.join(","))
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
                serde_json::Number::from_f64(v)
                    .map(Json::Number)
                    .ok_or_else(|| E::custom("not a finite number"))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::String(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Json, E> {
                Ok(Json::String(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = vec![];
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                // A key again replaces its value in place, found by an
                // index (a search of the pairs would make an object of n
                // keys cost n² comparisons).
                let mut pairs: Vec<(String, Json)> = vec![];
                let mut at: std::collections::HashMap<String, usize> =
                    std::collections::HashMap::new();
                while let Some((key, value)) = map.next_entry::<String, Json>()? {
                    match at.get(&key) {
                        Some(&index) => pairs[index].1 = value,
                        None => {
                            at.insert(key.clone(), pairs.len());
                            pairs.push((key, value));
                        }
                    }
                }
                Ok(Json::Object(pairs))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_keeps_its_key_order_and_a_key_again_replaces_in_place() {
        let value: Json = serde_json::from_str(r#"{"b": 1, "a": 2, "b": 3}"#).unwrap();
        assert_eq!(value.compact(), r#"{"b":3,"a":2}"#);
        // Many keys read in one pass (an index, not a search per key).
        let many: String = (0..50_000)
            .map(|i| format!(r#""p{i}": {{"type": "integer"}}"#))
            .collect::<Vec<_>>()
            .join(", ");
        let value: Json = serde_json::from_str(&format!("{{{many}}}")).unwrap();
        let keys = value.as_object().unwrap();
        assert_eq!(keys.len(), 50_000);
        assert_eq!(keys[49_999].0, "p49999");
    }
}
