//! Field readers that never fail: run.json files come from every p3lab version and from
//! people's editors, and one odd value must not hide the rest of the run's metadata.
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A string as written; a number or a bool as its text; anything else empty.
pub fn any_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    })
}

/// The field's type read from the value, or its default where the value is not of it.
pub fn or_default<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned + Default>(
    d: D,
) -> Result<T, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(serde_json::from_value(v).unwrap_or_default())
}

/// An argument list: an array of strings (each other element as its JSON text), or one
/// string (older files) as a list of one.
pub fn argv<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(a) => a
            .into_iter()
            .map(|x| match x {
                Value::String(s) => s,
                other => other.to_string(),
            })
            .collect(),
        Value::String(s) if !s.is_empty() => vec![s],
        _ => Vec::new(),
    })
}
