//! One flat view of a schema's keywords. `openapiv3` spreads them over `SchemaKind::Type(..)` variants
//! and, for any unusual combination, `SchemaKind::Any`; the builder reads this view instead.

use indexmap::IndexMap;
use openapiv3::{
    AdditionalProperties, IntegerFormat, NumberFormat, ReferenceOr, Schema, SchemaKind,
    StringFormat, Type, VariantOrUnknownOrEmpty,
};
use serde_json::Value;

#[derive(Default)]
pub struct View<'a> {
    pub typ: Option<&'a str>,
    pub format: Option<String>,
    pub pattern: Option<&'a str>,
    pub enumeration: Vec<Value>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: bool,
    pub exclusive_maximum: bool,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub properties: Option<&'a IndexMap<String, ReferenceOr<Box<Schema>>>>,
    pub required: &'a [String],
    pub additional: Option<&'a AdditionalProperties>,
    pub items: Option<&'a ReferenceOr<Box<Schema>>>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    pub unique_items: bool,
    pub min_properties: Option<usize>,
    pub max_properties: Option<usize>,
    pub one_of: &'a [ReferenceOr<Schema>],
    pub any_of: &'a [ReferenceOr<Schema>],
    pub all_of: &'a [ReferenceOr<Schema>],
    pub not: Option<&'a ReferenceOr<Schema>>,
    pub discriminator: Option<&'a openapiv3::Discriminator>,
}

fn format_name<T: std::fmt::Debug>(
    f: &VariantOrUnknownOrEmpty<T>,
    known: impl Fn(&T) -> &'static str,
) -> Option<String> {
    match f {
        VariantOrUnknownOrEmpty::Item(item) => Some(known(item).to_owned()),
        VariantOrUnknownOrEmpty::Unknown(s) => Some(s.clone()),
        VariantOrUnknownOrEmpty::Empty => None,
    }
}

fn string_format(f: &StringFormat) -> &'static str {
    match f {
        StringFormat::Date => "date",
        StringFormat::DateTime => "date-time",
        StringFormat::Password => "password",
        StringFormat::Byte => "byte",
        StringFormat::Binary => "binary",
    }
}

fn number_format(f: &NumberFormat) -> &'static str {
    match f {
        NumberFormat::Float => "float",
        NumberFormat::Double => "double",
    }
}

fn integer_format(f: &IntegerFormat) -> &'static str {
    match f {
        IntegerFormat::Int32 => "int32",
        IntegerFormat::Int64 => "int64",
    }
}

impl<'a> View<'a> {
    pub fn of(schema: &'a Schema) -> View<'a> {
        View {
            discriminator: schema.schema_data.discriminator.as_ref(),
            ..Self::of_kind(schema)
        }
    }

    fn of_kind(schema: &'a Schema) -> View<'a> {
        match &schema.schema_kind {
            SchemaKind::Type(Type::String(s)) => View {
                typ: Some("string"),
                format: format_name(&s.format, string_format),
                pattern: s.pattern.as_deref(),
                enumeration: s
                    .enumeration
                    .iter()
                    .map(|v| v.clone().map_or(Value::Null, Value::String))
                    .collect(),
                min_length: s.min_length,
                max_length: s.max_length,
                ..View::default()
            },
            SchemaKind::Type(Type::Number(n)) => View {
                typ: Some("number"),
                format: format_name(&n.format, number_format),
                enumeration: n
                    .enumeration
                    .iter()
                    .map(|v| v.map_or(Value::Null, Value::from))
                    .collect(),
                minimum: n.minimum,
                maximum: n.maximum,
                exclusive_minimum: n.exclusive_minimum,
                exclusive_maximum: n.exclusive_maximum,
                ..View::default()
            },
            SchemaKind::Type(Type::Integer(i)) => View {
                typ: Some("integer"),
                format: format_name(&i.format, integer_format),
                enumeration: i
                    .enumeration
                    .iter()
                    .map(|v| v.map_or(Value::Null, Value::from))
                    .collect(),
                minimum: i.minimum.map(|v| v as f64),
                maximum: i.maximum.map(|v| v as f64),
                exclusive_minimum: i.exclusive_minimum,
                exclusive_maximum: i.exclusive_maximum,
                ..View::default()
            },
            SchemaKind::Type(Type::Boolean(b)) => View {
                typ: Some("boolean"),
                enumeration: b
                    .enumeration
                    .iter()
                    .map(|v| v.map_or(Value::Null, Value::Bool))
                    .collect(),
                ..View::default()
            },
            SchemaKind::Type(Type::Object(o)) => View {
                typ: Some("object"),
                properties: Some(&o.properties),
                required: &o.required,
                additional: o.additional_properties.as_ref(),
                min_properties: o.min_properties,
                max_properties: o.max_properties,
                ..View::default()
            },
            SchemaKind::Type(Type::Array(a)) => View {
                typ: Some("array"),
                items: a.items.as_ref(),
                min_items: a.min_items,
                max_items: a.max_items,
                unique_items: a.unique_items,
                ..View::default()
            },
            SchemaKind::OneOf { one_of } => View {
                one_of,
                ..View::default()
            },
            SchemaKind::AnyOf { any_of } => View {
                any_of,
                ..View::default()
            },
            SchemaKind::AllOf { all_of } => View {
                all_of,
                ..View::default()
            },
            SchemaKind::Not { not } => View {
                not: Some(not),
                ..View::default()
            },
            SchemaKind::Any(a) => View {
                typ: a.typ.as_deref(),
                format: a.format.clone(),
                pattern: a.pattern.as_deref(),
                enumeration: a.enumeration.clone(),
                minimum: a.minimum,
                maximum: a.maximum,
                exclusive_minimum: a.exclusive_minimum.unwrap_or(false),
                exclusive_maximum: a.exclusive_maximum.unwrap_or(false),
                min_length: a.min_length,
                max_length: a.max_length,
                properties: (!a.properties.is_empty()).then_some(&a.properties),
                required: &a.required,
                additional: a.additional_properties.as_ref(),
                items: a.items.as_ref(),
                min_items: a.min_items,
                max_items: a.max_items,
                unique_items: a.unique_items.unwrap_or(false),
                min_properties: a.min_properties,
                max_properties: a.max_properties,
                one_of: &a.one_of,
                any_of: &a.any_of,
                all_of: &a.all_of,
                not: a.not.as_deref(),
                discriminator: None,
            },
        }
    }

    /// The type this schema describes, inferred from its keywords when `type` is absent.
    pub fn effective_type(&self) -> Option<&'a str> {
        if self.typ.is_some() {
            return self.typ;
        }
        if self.properties.is_some() || self.additional.is_some() {
            Some("object")
        } else if self.items.is_some() {
            Some("array")
        } else {
            None
        }
    }

    pub fn has_composition(&self) -> bool {
        !self.one_of.is_empty() || !self.any_of.is_empty() || !self.all_of.is_empty()
    }
}
