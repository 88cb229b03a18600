//! Request bodies in Kubernetes' protobuf encoding
//! (`application/vnd.kubernetes.protobuf`, what kubectl's typed commands
//! such as `kubectl create configmap` send), decoded into the JSON the
//! rest of the server handles, as the API server's JSON shows the same
//! object. A body is the bytes `k8s\0` and a `runtime.Unknown` message:
//! the object's apiVersion and kind, and its own message.

mod json;
mod table;
mod wire;

use serde_json::Value;
use wire::Wire;

pub use json::DecodeError;

/// The media type of protobuf bodies.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

const MAGIC: &[u8] = b"k8s\0";

/// Why a protobuf body was not decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The body is not a Kubernetes protobuf object (the server's 400).
    Malformed(DecodeError),
    /// A kind this server has no protobuf message for (the server's 415).
    UnknownKind { api_version: String, kind: String },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Malformed(e) => e.fmt(f),
            Error::UnknownKind { api_version, kind } => {
                write!(f, "no protobuf message for kind \"{kind}\" in version \"{api_version}\"")
            }
        }
    }
}

fn malformed(why: impl ToString) -> Error {
    Error::Malformed(DecodeError { path: String::new(), why: why.to_string() })
}

/// Whether a `Content-Type` is protobuf.
pub fn is_protobuf(content_type: &str) -> bool {
    content_type.split(';').next().unwrap_or_default().trim() == MEDIA_TYPE
}

/// The object in a protobuf body, as JSON with its `apiVersion` and `kind`.
pub fn decode(body: &[u8]) -> Result<Value, Error> {
    let unknown = body.strip_prefix(MAGIC).ok_or_else(|| {
        malformed(format!("provided data does not appear to be a protobuf message, expected prefix {MAGIC:?}"))
    })?;
    let (mut api_version, mut kind, mut raw, mut encoding) = (String::new(), String::new(), &[][..], &[][..]);
    for item in wire::fields(unknown) {
        match item.map_err(malformed)? {
            (1, Wire::Bytes(type_meta)) => {
                for item in wire::fields(type_meta) {
                    match item.map_err(malformed)? {
                        (1, Wire::Bytes(v)) => api_version = String::from_utf8_lossy(v).into_owned(),
                        (2, Wire::Bytes(k)) => kind = String::from_utf8_lossy(k).into_owned(),
                        _ => {}
                    }
                }
            }
            (2, Wire::Bytes(r)) => raw = r,
            (3, Wire::Bytes(e)) => encoding = e,
            _ => {}
        }
    }
    if !encoding.is_empty() {
        return Err(malformed(format!("unsupported content encoding {:?}", String::from_utf8_lossy(encoding))));
    }
    let Some((name, _)) = table::message_of(&api_version, &kind) else {
        return Err(Error::UnknownKind { api_version, kind });
    };
    let object = json::message(name, raw, "", 0).map_err(Error::Malformed)?;
    Ok(super::object::with_type(&object, &api_version, &kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(number: u32, bytes: &[u8]) -> Vec<u8> {
        wire_field(number, 2, bytes)
    }

    fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
        let type_meta = [field(1, api_version.as_bytes()), field(2, kind.as_bytes())].concat();
        [MAGIC.to_vec(), field(1, &type_meta), field(2, raw)].concat()
    }

    #[test]
    fn a_configmap_decodes_as_the_servers_json_shows_it() {
        let meta = [field(1, b"web"), field(11, &[field(1, b"app"), field(2, b"web")].concat())].concat();
        let raw = [
            field(1, &meta),
            field(2, &[field(1, b"k"), field(2, b"v")].concat()),
            field(3, &[field(1, b"bin"), field(2, &[0, 1, 2])].concat()),
        ]
        .concat();
        let object = decode(&envelope("v1", "ConfigMap", &raw)).unwrap();
        assert_eq!(
            object,
            json!({
                "apiVersion": "v1", "kind": "ConfigMap",
                // A zero `metav1.Time` (a struct: never omitted) is null.
                "metadata": {"name": "web", "labels": {"app": "web"}, "creationTimestamp": null},
                "data": {"k": "v"},
                "binaryData": {"bin": "AAEC"},
            })
        );
    }

    /// A field's key and value on the wire.
    fn wire_field(number: u32, wire_type: u32, value: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut key = u64::from(number << 3 | wire_type);
        loop {
            let byte = (key & 0x7f) as u8;
            key >>= 7;
            out.push(if key == 0 { byte } else { byte | 0x80 });
            if key == 0 {
                break;
            }
        }
        if wire_type == 2 {
            out.extend(wire_field_len(value.len()));
        }
        out.extend_from_slice(value);
        out
    }

    fn wire_field_len(mut len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let byte = (len & 0x7f) as u8;
            len >>= 7;
            out.push(if len == 0 { byte } else { byte | 0x80 });
            if len == 0 {
                return out;
            }
        }
    }

    /// Messages of random fields: varints, strings and nested messages,
    /// numbered where the API's messages have fields.
    fn messages() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            (1u32..16, any::<u8>()).prop_map(|(n, v)| wire_field(n, 0, &[v & 0x7f])),
            (1u32..16, "[a-z]{0,6}").prop_map(|(n, s)| wire_field(n, 2, s.as_bytes())),
            (1u32..16, proptest::collection::vec(any::<u8>(), 0..8)).prop_map(|(n, b)| wire_field(n, 2, &b)),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            (1u32..16, proptest::collection::vec(inner, 0..6)).prop_map(|(n, parts)| wire_field(n, 2, &parts.concat()))
        })
    }

    proptest::proptest! {
        // 256 cases (`PROPTEST_CASES` overrides).
        #[test]
        fn any_message_decodes_or_fails_without_panicking(
            kind in proptest::sample::select(vec![("v1", "Pod"), ("apps/v1", "Deployment"), ("v1", "ConfigMap"), ("v1", "Service")]),
            fields in proptest::collection::vec(messages(), 0..6),
            cut in proptest::prelude::any::<proptest::sample::Index>(),
        ) {
            let whole = envelope(kind.0, kind.1, &fields.concat());
            if let Ok(object) = decode(&whole) {
                proptest::prop_assert_eq!(&object["kind"], kind.1);
                proptest::prop_assert!(object["metadata"].is_object() || object.get("metadata").is_none());
            }
            let _ = decode(&whole[..cut.index(whole.len() + 1)]);
        }
    }

    #[test]
    fn what_cannot_be_decoded_is_an_error() {
        assert!(matches!(decode(b"{}"), Err(Error::Malformed(_))));
        let custom = decode(&envelope("example.com/v1", "Backend", &[])).unwrap_err();
        assert_eq!(custom.to_string(), "no protobuf message for kind \"Backend\" in version \"example.com/v1\"");
        // A truncated field inside the object: where it was.
        let bad = decode(&envelope("v1", "ConfigMap", &[0x0a, 0x03, 0x0a, 0x05, b'x'])).unwrap_err();
        assert_eq!(bad.to_string(), "metadata: unexpected EOF");
        // Every prefix of a valid body is an answer, never a panic.
        let whole = envelope("v1", "ConfigMap", &field(1, &field(1, b"web")));
        for end in 0..whole.len() {
            let _ = decode(&whole[..end]);
        }
    }
}
