//! A JSON Schema validator for the report schemas in `schemas/`: the 2020-12 keywords
//! those schemas use, each implemented as the specification states it, and nothing
//! else. A keyword this module does not implement makes [`Validator::new`] fail, so a
//! schema can never be half-checked in silence.
//!
//! Why not a JSON Schema crate: the general-purpose ones bring in URL parsing, IDNA,
//! big numbers and a full regex engine (about 70 crates and a minute of CPU in a fresh
//! `cargo test`) to check seven files that use 24 keywords. What the schemas are checked
//! against here is what they say; that they are themselves valid JSON Schema documents
//! is checked, with an independent implementation and the published meta-schema, by
//! `.ci/validate_formats.py schemas` in `.ci/run`.
//!
//! Keyword semantics follow "JSON Schema Validation: A Vocabulary for Structural
//! Validation of JSON" (draft 2020-12) §6 and "JSON Schema Core" (draft 2020-12) §10
//! (applicators) and §8.2.3 (`$ref`, resolved here within the same document only).

use serde_json::{Map, Value};

/// Keywords that annotate and never reject (Core §8, Validation §9 "format" as an
/// annotation, which is its 2020-12 default).
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "format",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Keywords that hold schemas by name and are reached only through `$ref`.
const DEFINITIONS: &[&str] = &["$defs", "definitions"];

/// Keywords that validate, each implemented in [`Validator::check_keyword`].
const ASSERTIONS: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "prefixItems",
    "items",
    "contains",
    "required",
    "properties",
    "additionalProperties",
    "propertyNames",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
];

/// The instance types of Validation §6.1.1.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// A compiled schema document.
pub struct Validator {
    root: Value,
}

impl Validator {
    /// Checks that every (sub)schema of `schema` uses only keywords implemented here,
    /// with values of the right shape (patterns that compile, `$ref`s that resolve).
    pub fn new(schema: Value) -> Result<Validator, String> {
        let validator = Validator { root: schema };
        validator.check_schema(&validator.root, "#")?;
        Ok(validator)
    }

    /// True when `instance` satisfies the schema.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.errors(instance).is_empty()
    }

    /// Every reason `instance` fails the schema, each with the instance path it is at.
    pub fn errors(&self, instance: &Value) -> Vec<String> {
        let mut errors = Vec::new();
        self.check(&self.root, instance, "", &mut errors);
        errors
    }

    fn check_schema(&self, schema: &Value, at: &str) -> Result<(), String> {
        let object = match schema {
            Value::Bool(_) => return Ok(()),
            Value::Object(object) => object,
            _ => return Err(format!("{at}: a schema is an object or a boolean")),
        };
        for (keyword, value) in object {
            let here = format!("{at}/{keyword}");
            if ANNOTATIONS.contains(&keyword.as_str()) {
                continue;
            }
            if DEFINITIONS.contains(&keyword.as_str()) {
                for (name, sub) in value.as_object().ok_or(format!("{here}: not an object"))? {
                    self.check_schema(sub, &format!("{here}/{name}"))?;
                }
                continue;
            }
            if !ASSERTIONS.contains(&keyword.as_str()) {
                return Err(format!("{here}: keyword not implemented by this validator"));
            }
            self.check_keyword_shape(keyword, value, &here)?;
        }
        Ok(())
    }

    fn check_keyword_shape(&self, keyword: &str, value: &Value, here: &str) -> Result<(), String> {
        let bad = |what: &str| Err(format!("{here}: {what}"));
        match keyword {
            "$ref" => match value.as_str() {
                Some(reference) if self.resolve(reference).is_some() => Ok(()),
                _ => bad("does not resolve within the document"),
            },
            "type" => {
                let names: Vec<&Value> = match value {
                    Value::Array(names) => names.iter().collect(),
                    name => vec![name],
                };
                match names
                    .iter()
                    .all(|n| n.as_str().is_some_and(|n| TYPES.contains(&n)))
                {
                    true => Ok(()),
                    false => bad("not a type name or a list of them"),
                }
            }
            "enum" | "required" if !value.is_array() => bad("not an array"),
            "required" if !value.as_array().unwrap().iter().all(Value::is_string) => {
                bad("not an array of strings")
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum"
                if !value.is_number() =>
            {
                bad("not a number")
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" if !value.is_u64() => {
                bad("not a non-negative integer")
            }
            "uniqueItems" if !value.is_boolean() => bad("not a boolean"),
            "pattern" => match value.as_str().map(regex_lite::Regex::new) {
                Some(Ok(_)) => Ok(()),
                _ => bad("not a regular expression"),
            },
            "prefixItems" | "allOf" | "anyOf" | "oneOf" => match value.as_array() {
                Some(list) if !list.is_empty() => list
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, sub)| self.check_schema(sub, &format!("{here}/{i}"))),
                _ => bad("not a non-empty array of schemas"),
            },
            "properties" => match value.as_object() {
                Some(properties) => properties
                    .iter()
                    .try_for_each(|(name, sub)| self.check_schema(sub, &format!("{here}/{name}"))),
                None => bad("not an object"),
            },
            "items" | "contains" | "additionalProperties" | "propertyNames" | "not" => {
                self.check_schema(value, here)
            }
            _ => Ok(()),
        }
    }

    /// The subschema a same-document reference (`#` or `#/a/b`, JSON Pointer,
    /// RFC 6901) points at.
    fn resolve(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    fn check(&self, schema: &Value, instance: &Value, path: &str, errors: &mut Vec<String>) {
        let object = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return errors.push(format!("{path}: the schema `false`")),
            Value::Object(object) => object,
            _ => unreachable!("checked by Validator::new"),
        };
        for (keyword, value) in object {
            self.check_keyword(object, keyword, value, instance, path, errors);
        }
    }

    fn check_keyword(
        &self,
        schema: &Map<String, Value>,
        keyword: &str,
        value: &Value,
        instance: &Value,
        path: &str,
        errors: &mut Vec<String>,
    ) {
        let mut fail = |what: String| errors.push(format!("{path}: {what}"));
        match keyword {
            "$ref" => {
                let target = self.resolve(value.as_str().unwrap()).unwrap();
                self.check(target, instance, path, errors)
            }
            "type" => {
                let names: Vec<&str> = match value {
                    Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                    name => vec![name.as_str().unwrap()],
                };
                if !names.iter().any(|name| has_type(instance, name)) {
                    fail(format!(
                        "{} is not of type {}",
                        short(instance),
                        names.join(" or ")
                    ));
                }
            }
            "enum" if !value.as_array().unwrap().contains(instance) => {
                fail(format!("{} is not one of {value}", short(instance)));
            }
            "const" if value != instance => fail(format!("{} is not {value}", short(instance))),
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                if let (Some(x), Some(bound)) = (instance.as_f64(), value.as_f64()) {
                    let within = match keyword {
                        "minimum" => x >= bound,
                        "maximum" => x <= bound,
                        "exclusiveMinimum" => x > bound,
                        _ => x < bound,
                    };
                    if !within {
                        fail(format!("{x} is outside {keyword} {bound}"));
                    }
                }
            }
            "minLength" | "maxLength" => {
                if let Some(text) = instance.as_str() {
                    // Validation §6.3.1: length in characters (code points), not bytes.
                    let length = text.chars().count() as u64;
                    let bound = value.as_u64().unwrap();
                    if (keyword == "minLength" && length < bound)
                        || (keyword == "maxLength" && length > bound)
                    {
                        fail(format!("{length} characters is outside {keyword} {bound}"));
                    }
                }
            }
            "pattern" => {
                if let Some(text) = instance.as_str() {
                    // Validation §6.3.3: "not implicitly anchored".
                    let pattern = value.as_str().unwrap();
                    if !regex_lite::Regex::new(pattern).unwrap().is_match(text) {
                        fail(format!("{text:?} does not match {pattern:?}"));
                    }
                }
            }
            "allOf" | "anyOf" | "oneOf" | "not" => {
                self.check_combinator(keyword, value, instance, path, errors)
            }
            // The other keywords apply to one instance type, and any other instance
            // passes them (Validation §6: "if the instance is not an array/object,
            // validation succeeds").
            _ => match instance {
                Value::Array(items) => {
                    self.check_array(schema, keyword, value, items, path, errors)
                }
                Value::Object(members) => {
                    self.check_object(schema, keyword, value, members, path, errors)
                }
                _ => {}
            },
        }
    }

    fn check_array(
        &self,
        schema: &Map<String, Value>,
        keyword: &str,
        value: &Value,
        items: &[Value],
        path: &str,
        errors: &mut Vec<String>,
    ) {
        let count = items.len() as u64;
        match keyword {
            "minItems" if count < value.as_u64().unwrap() => {
                errors.push(format!("{path}: {count} items, fewer than {value}"));
            }
            "maxItems" if count > value.as_u64().unwrap() => {
                errors.push(format!("{path}: {count} items, more than {value}"));
            }
            "uniqueItems" if value == &Value::Bool(true) => {
                for (i, item) in items.iter().enumerate() {
                    if items[..i].contains(item) {
                        errors.push(format!("{path}/{i}: a repeated item {}", short(item)));
                    }
                }
            }
            "prefixItems" => {
                for (i, (sub, item)) in value.as_array().unwrap().iter().zip(items).enumerate() {
                    self.check(sub, item, &format!("{path}/{i}"), errors);
                }
            }
            // Core §10.3.1.2: `items` applies to the elements after `prefixItems`.
            "items" => {
                let skip = schema
                    .get("prefixItems")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                for (i, item) in items.iter().enumerate().skip(skip) {
                    self.check(value, item, &format!("{path}/{i}"), errors);
                }
            }
            "contains"
                if !items
                    .iter()
                    .any(|item| self.errors_of(value, item, path).is_empty()) =>
            {
                errors.push(format!("{path}: no item matches `contains`"));
            }
            _ => {}
        }
    }

    fn check_object(
        &self,
        schema: &Map<String, Value>,
        keyword: &str,
        value: &Value,
        members: &Map<String, Value>,
        path: &str,
        errors: &mut Vec<String>,
    ) {
        match keyword {
            "required" => {
                for name in value.as_array().unwrap().iter().filter_map(Value::as_str) {
                    if !members.contains_key(name) {
                        errors.push(format!("{path}: the required property {name:?} is missing"));
                    }
                }
            }
            "properties" => {
                for (name, sub) in value.as_object().unwrap() {
                    if let Some(member) = members.get(name) {
                        self.check(sub, member, &format!("{path}/{name}"), errors);
                    }
                }
            }
            // Core §10.3.2.3: the members that `properties` does not name.
            "additionalProperties" => {
                let named = schema.get("properties").and_then(Value::as_object);
                for (name, member) in members {
                    if !named.is_some_and(|named| named.contains_key(name)) {
                        self.check(value, member, &format!("{path}/{name}"), errors);
                    }
                }
            }
            "propertyNames" => {
                for name in members.keys() {
                    let name_value = Value::String(name.clone());
                    self.check(value, &name_value, &format!("{path}/{name}"), errors);
                }
            }
            _ => {}
        }
    }

    fn check_combinator(
        &self,
        keyword: &str,
        value: &Value,
        instance: &Value,
        path: &str,
        errors: &mut Vec<String>,
    ) {
        let passing = |list: &Value| {
            list.as_array()
                .unwrap()
                .iter()
                .filter(|sub| self.errors_of(sub, instance, path).is_empty())
                .count()
        };
        match keyword {
            "allOf" => {
                for sub in value.as_array().unwrap() {
                    self.check(sub, instance, path, errors);
                }
            }
            "anyOf" if passing(value) == 0 => {
                errors.push(format!("{path}: {} matches none of anyOf", short(instance)));
            }
            "oneOf" => match passing(value) {
                1 => {}
                n => errors.push(format!(
                    "{path}: {} matches {n} of oneOf, not one",
                    short(instance)
                )),
            },
            "not" if self.errors_of(value, instance, path).is_empty() => {
                errors.push(format!("{path}: {} matches `not`", short(instance)));
            }
            _ => {}
        }
    }

    fn errors_of(&self, schema: &Value, instance: &Value, path: &str) -> Vec<String> {
        let mut errors = Vec::new();
        self.check(schema, instance, path, &mut errors);
        errors
    }
}

/// Validation §6.1.1, with "integer" as "any number with a zero fractional part".
fn has_type(instance: &Value, name: &str) -> bool {
    match name {
        "null" => instance.is_null(),
        "boolean" => instance.is_boolean(),
        "object" => instance.is_object(),
        "array" => instance.is_array(),
        "string" => instance.is_string(),
        "number" => instance.is_number(),
        "integer" => {
            instance.is_i64()
                || instance.is_u64()
                || instance.as_f64().is_some_and(|x| x.fract() == 0.0)
        }
        _ => false,
    }
}

/// An instance as an error message shows it: its JSON, cut at 80 characters.
fn short(instance: &Value) -> String {
    let text = instance.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
