//! The protobuf wire format: a message is a sequence of fields, each a key
//! (field number and wire type) and a value.

/// One field's value as the wire holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wire<'a> {
    /// Wire type 0: integers, booleans.
    Varint(u64),
    /// Wire type 1: `fixed64`, `double`.
    Fixed64(u64),
    /// Wire type 2: strings, bytes, messages, packed repeated scalars.
    Bytes(&'a [u8]),
    /// Wire type 5: `fixed32`, `float`.
    Fixed32(u32),
}

/// Why a message could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// The bytes end inside a field.
    Truncated,
    /// A varint longer than ten bytes.
    BadVarint,
    /// Wire types 3, 4 (groups), 6 and 7.
    BadWireType(u8),
    /// Field number 0.
    BadFieldNumber,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Truncated => f.write_str("unexpected EOF"),
            WireError::BadVarint => f.write_str("integer overflow"),
            WireError::BadWireType(t) => write!(f, "illegal wireType {t}"),
            WireError::BadFieldNumber => f.write_str("illegal tag 0"),
        }
    }
}

/// Reads a varint at the start of `bytes`: its value and the rest.
pub fn varint(bytes: &[u8]) -> Result<(u64, &[u8]), WireError> {
    let mut value = 0u64;
    for (i, b) in bytes.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((value, &bytes[i + 1..]));
        }
    }
    Err(if bytes.len() < 10 { WireError::Truncated } else { WireError::BadVarint })
}

fn take(bytes: &[u8], n: usize) -> Result<(&[u8], &[u8]), WireError> {
    if bytes.len() < n { Err(WireError::Truncated) } else { Ok(bytes.split_at(n)) }
}

/// The fields of a message, in the order of the wire.
pub fn fields(mut bytes: &[u8]) -> impl Iterator<Item = Result<(u32, Wire<'_>), WireError>> {
    std::iter::from_fn(move || {
        if bytes.is_empty() {
            return None;
        }
        let next = (|| {
            let (key, rest) = varint(bytes)?;
            let number = u32::try_from(key >> 3).map_err(|_| WireError::BadFieldNumber)?;
            if number == 0 {
                return Err(WireError::BadFieldNumber);
            }
            let (value, rest) = match key & 7 {
                0 => {
                    let (v, rest) = varint(rest)?;
                    (Wire::Varint(v), rest)
                }
                1 => {
                    let (v, rest) = take(rest, 8)?;
                    (Wire::Fixed64(u64::from_le_bytes(v.try_into().expect("eight bytes"))), rest)
                }
                2 => {
                    let (len, rest) = varint(rest)?;
                    let len = usize::try_from(len).map_err(|_| WireError::Truncated)?;
                    let (v, rest) = take(rest, len)?;
                    (Wire::Bytes(v), rest)
                }
                5 => {
                    let (v, rest) = take(rest, 4)?;
                    (Wire::Fixed32(u32::from_le_bytes(v.try_into().expect("four bytes"))), rest)
                }
                other => return Err(WireError::BadWireType(other as u8)),
            };
            bytes = rest;
            Ok((number, value))
        })();
        if next.is_err() {
            // Nothing after an error is read.
            bytes = &[];
        }
        Some(next)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_in_wire_order() {
        // 1: varint 150, 2: "hi", 3: fixed32 1, 4: fixed64 2.
        let bytes = [0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1d, 1, 0, 0, 0, 0x21, 2, 0, 0, 0, 0, 0, 0, 0];
        let read: Vec<_> = fields(&bytes).collect::<Result<_, _>>().unwrap();
        assert_eq!(
            read,
            [(1, Wire::Varint(150)), (2, Wire::Bytes(b"hi")), (3, Wire::Fixed32(1)), (4, Wire::Fixed64(2))]
        );
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert_eq!(fields(&[0x12, 0x05, b'a']).next(), Some(Err(WireError::Truncated)));
        assert_eq!(fields(&[0x0b]).next(), Some(Err(WireError::BadWireType(3))));
        assert_eq!(fields(&[0x00]).next(), Some(Err(WireError::BadFieldNumber)));
        let long = [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(fields(&long).next(), Some(Err(WireError::BadVarint)));
        assert_eq!(fields(&[0x08, 0x80]).next(), Some(Err(WireError::Truncated)));
        let mut after_error = fields(&[0x12, 0x05]);
        assert!(after_error.next().unwrap().is_err());
        assert_eq!(after_error.next(), None);
    }
}
