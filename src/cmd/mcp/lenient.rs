//! Optional whole numbers of the tools' arguments, as clients send them.
//! The schema says `integer`, but some clients (the MCP Inspector's CLI)
//! send every argument as a string: `"2"` is taken as 2; anything else is
//! refused with the argument's name and what was given.

use serde::Deserialize;

/// An optional whole number that fits `T`, from a JSON number or a
/// string of digits; null or absent is None.
fn number<'de, D, T>(d: D, name: &str) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<u64>,
{
    use serde::de::Error;
    let v = serde_json::Value::deserialize(d)?;
    let n = match &v {
        serde_json::Value::Null => return Ok(None),
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    let n = n.ok_or_else(|| D::Error::custom(format!("{name}: expected a whole number (0 or more), got {v}")))?;
    T::try_from(n).map(Some).map_err(|_| D::Error::custom(format!("{name}: {n} is too large")))
}

macro_rules! lenient {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        pub fn $name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<$t>, D::Error> {
            number(d, stringify!($name))
        }
    )*};
}

lenient!(limit: usize, level: u8, limit_tokens: usize, offset: usize, max_chars: usize);

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize, Debug)]
    struct P {
        #[serde(default, deserialize_with = "super::limit")]
        limit: Option<usize>,
        #[serde(default, deserialize_with = "super::level")]
        level: Option<u8>,
    }

    fn parse(v: serde_json::Value) -> Result<P, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn numbers_and_numeric_strings_are_taken_and_the_rest_refused_by_name() {
        assert_eq!(parse(serde_json::json!({"limit": 2})).unwrap().limit, Some(2));
        assert_eq!(parse(serde_json::json!({"limit": " 2 "})).unwrap().limit, Some(2));
        assert_eq!(parse(serde_json::json!({"limit": null})).unwrap().limit, None);
        assert_eq!(parse(serde_json::json!({})).unwrap().limit, None);
        let e = parse(serde_json::json!({"limit": "two"})).unwrap_err();
        assert_eq!(e, "limit: expected a whole number (0 or more), got \"two\"");
        assert!(parse(serde_json::json!({"limit": -1})).unwrap_err().starts_with("limit: expected"));
        assert!(parse(serde_json::json!({"limit": 2.5})).unwrap_err().starts_with("limit: expected"));
        assert_eq!(parse(serde_json::json!({"level": "3"})).unwrap().level, Some(3));
        assert_eq!(parse(serde_json::json!({"level": "300"})).unwrap_err(), "level: 300 is too large");
    }
}
