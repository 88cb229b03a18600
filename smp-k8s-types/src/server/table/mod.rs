//! `Table` answers (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`),
//! what `kubectl get` prints: the columns kube-apiserver's printers give
//! the common built-in kinds, a CRD's `additionalPrinterColumns` for its
//! custom resources, and the name and age for every other kind.

mod jsonpath;
mod printers;

use super::catalog::{KindSchema, ResourceType};
use super::status::ApiError;
use serde_json::{Map, Value, json};

/// One column: its definition as the Table shows it.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub kind: String,
    pub format: String,
    pub description: String,
    pub priority: i64,
}

impl Column {
    fn new(name: &str, kind: &str, description: &str, priority: i64) -> Self {
        Column {
            name: name.into(),
            kind: kind.into(),
            format: String::new(),
            description: description.into(),
            priority,
        }
    }

    fn to_json(&self) -> Value {
        json!({"name": self.name, "type": self.kind, "format": self.format, "description": self.description, "priority": self.priority})
    }
}

const NAME_DOC: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DOC: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

fn name_column() -> Column {
    Column { format: "name".into(), ..Column::new("Name", "string", NAME_DOC, 0) }
}

fn age_column() -> Column {
    Column::new("Age", "string", AGE_DOC, 0)
}

/// Whether an `Accept` header asks for a Table (before any plain JSON).
pub fn wanted(accept: &str) -> bool {
    accept.split(',').any(|media| {
        let mut params = media.split(';').map(str::trim);
        params.next() == Some("application/json")
            && params.clone().any(|p| p == "as=Table")
            && params.clone().any(|p| p == "g=meta.k8s.io")
            && params.clone().any(|p| p == "v=v1" || p == "v=v1beta1")
    })
}

/// How much of each object a row carries (`includeObject`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Include {
    None,
    Metadata,
    Object,
}

/// The cells of an object's row, given the time now (for ages).
type Cells = Box<dyn Fn(&Value, i64) -> Vec<Value>>;

/// The columns and cells of a resource's objects.
struct Printer {
    columns: Vec<Column>,
    cells: Cells,
}

fn printer(resource: &ResourceType) -> Printer {
    if let KindSchema::Custom(_) = resource.schema {
        return custom(resource);
    }
    let default_convertor = matches!(
        (resource.group.as_str(), resource.plural.as_str()),
        ("apiextensions.k8s.io", "customresourcedefinitions") | ("rbac.authorization.k8s.io", "roles" | "clusterroles")
    );
    if default_convertor {
        // Kinds the server gives its default table convertor.
        let created = Column { format: "date".into(), ..Column::new("Created At", "date", AGE_DOC, 0) };
        return Printer {
            columns: vec![name_column(), created],
            cells: Box::new(|o, _| vec![name(o), o["metadata"]["creationTimestamp"].clone()]),
        };
    }
    if let Some((columns, cells)) = printers::of(&resource.group, &resource.plural) {
        let columns = columns
            .iter()
            .map(|(name, kind, description, priority)| match *name {
                "Name" => Column { priority: *priority, ..name_column() },
                "Age" => age_column(),
                _ => Column::new(name, kind, description, *priority),
            })
            .collect();
        return Printer { columns, cells: Box::new(cells) };
    }
    Printer { columns: vec![name_column(), age_column()], cells: Box::new(|o, now| vec![name(o), age(o, now)]) }
}

/// A custom resource: its name, the CRD's `additionalPrinterColumns`
/// (the age when it declares none, as the CRD's defaulting adds).
fn custom(resource: &ResourceType) -> Printer {
    let declared: Vec<Value> = resource.printer_columns.clone();
    if declared.is_empty() {
        return Printer {
            columns: vec![name_column(), age_column()],
            cells: Box::new(|o, now| vec![name(o), age(o, now)]),
        };
    }
    let mut columns = vec![name_column()];
    for c in &declared {
        let text = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default();
        columns.push(Column {
            name: text("name").into(),
            kind: text("type").into(),
            format: text("format").into(),
            description: text("description").into(),
            priority: c.get("priority").and_then(Value::as_i64).unwrap_or(0),
        });
    }
    let cells = move |o: &Value, now: i64| {
        let mut row = vec![name(o)];
        for c in &declared {
            let path = c.get("jsonPath").and_then(Value::as_str).unwrap_or_default();
            let found = jsonpath::find(o, path);
            let cell = match (c.get("type").and_then(Value::as_str), found) {
                (_, None) => Value::Null,
                (Some("date"), Some(Value::String(t))) => match super::clock::parse_rfc3339(&t) {
                    Some(at) => Value::String(human_duration(now - at)),
                    None => Value::String(t),
                },
                (Some("string"), Some(v)) if !v.is_string() => Value::String(printed(&v)),
                (_, Some(v)) => v,
            };
            row.push(cell);
        }
        row
    };
    Printer { columns, cells: Box::new(cells) }
}

/// A value as `fmt.Sprint` prints it in a cell.
fn printed(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(crate) fn name(object: &Value) -> Value {
    object["metadata"]["name"].clone()
}

/// The age cell: `translateTimestampSince`.
pub(crate) fn age(object: &Value, now: i64) -> Value {
    match object["metadata"]["creationTimestamp"].as_str().and_then(super::clock::parse_rfc3339) {
        Some(created) => Value::String(human_duration(now - created)),
        None => Value::String("<unknown>".into()),
    }
}

/// apimachinery's `duration.HumanDuration`, of whole seconds.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 { format!("{minutes}m") } else { format!("{minutes}m{s}s") };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 { format!("{hours}h") } else { format!("{hours}h{m}m") };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 { format!("{}d", hours / 24) } else { format!("{}d{h}h", hours / 24) };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 { format!("{}y", hours / 24 / 365) } else { format!("{}y{dy}d", hours / 24 / 365) };
    }
    format!("{}y", hours / 24 / 365)
}

fn include(query: &std::collections::HashMap<String, String>) -> Result<Include, ApiError> {
    match query.get("includeObject").map(String::as_str) {
        None | Some("" | "Metadata") => Ok(Include::Metadata),
        Some("None") => Ok(Include::None),
        Some("Object") => Ok(Include::Object),
        Some(other) => Err(ApiError::bad_request(format!(
            "includeObject: Unsupported value: \"{other}\": supported values: \"Metadata\", \"None\", \"Object\""
        ))),
    }
}

/// The Table of `objects` (each shown with its apiVersion and kind), with
/// the list's metadata (`resourceVersion`, `continue`).
pub fn table(
    resource: &ResourceType,
    objects: &[Value],
    metadata: Value,
    query: &std::collections::HashMap<String, String>,
    now: i64,
) -> Result<Value, ApiError> {
    let include = include(query)?;
    let printer = printer(resource);
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut row = Map::new();
            row.insert("cells".into(), Value::Array((printer.cells)(o, now)));
            let object = match include {
                Include::None => None,
                Include::Metadata => Some(json!({
                    "kind": "PartialObjectMetadata",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": o["metadata"],
                })),
                Include::Object => Some(o.clone()),
            };
            if let Some(object) = object {
                row.insert("object".into(), object);
            }
            Value::Object(row)
        })
        .collect();
    let columns: Vec<Value> = printer.columns.iter().map(Column::to_json).collect();
    Ok(json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": columns,
        "rows": rows,
    }))
}

/// The Table of each object of a watch (`kubectl get --watch`): one row
/// per event.
pub struct WatchTables {
    resource: std::sync::Arc<ResourceType>,
    query: std::collections::HashMap<String, String>,
    /// A manual clock's time when the watch opened, or the machine's.
    fixed_now: Option<i64>,
}

impl WatchTables {
    /// Checks the options of the watch's request.
    pub fn new(
        resource: std::sync::Arc<ResourceType>,
        query: &std::collections::HashMap<String, String>,
        clock: &super::clock::Clock,
    ) -> Result<Self, ApiError> {
        include(query)?;
        let fixed_now = match clock {
            super::clock::Clock::System => None,
            manual => Some(seconds(manual.now())),
        };
        Ok(WatchTables { resource, query: query.clone(), fixed_now })
    }

    /// The Table of one object.
    pub fn of(&self, object: &Value) -> Value {
        let now = self.fixed_now.unwrap_or_else(|| seconds(std::time::SystemTime::now()));
        let metadata = json!({"resourceVersion": object["metadata"]["resourceVersion"]});
        table(&self.resource, std::slice::from_ref(object), metadata, &self.query, now).unwrap_or(Value::Null)
    }
}

/// Seconds since 1970.
pub fn seconds(t: std::time::SystemTime) -> i64 {
    t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_human_durations() {
        let cases = [
            (-5, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (150, "2m30s"),
            (600, "10m"),
            (179 * 60, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60, "3h1m"),
            (8 * 3600, "8h"),
            (47 * 3600, "47h"),
            (48 * 3600, "2d"),
            (49 * 3600, "2d1h"),
            (8 * 86_400, "8d"),
            (730 * 86_400, "2y"),
            (731 * 86_400, "2y1d"),
            (8 * 365 * 86_400, "8y"),
        ];
        for (seconds, text) in cases {
            assert_eq!(human_duration(seconds), text, "{seconds}");
        }
    }

    #[test]
    fn tables_are_asked_for_in_accept() {
        assert!(wanted(
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
        ));
        assert!(!wanted("application/json, */*"));
        assert!(!wanted("application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"));
    }
}
