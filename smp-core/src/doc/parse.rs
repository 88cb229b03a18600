//! The reader of the compact document: JSON text straight into
//! [`Node`]s, strings borrowed from the text wherever they need no
//! unescaping.
//!
//! It accepts exactly the texts serde_json accepts and decodes them to the
//! values the `Value` path decodes (so that both paths agree on every
//! input):
//!
//! - the grammar of RFC 8259 with serde_json's whitespace (space, tab,
//!   line feed, carriage return), no leading zeros, no trailing commas;
//! - strings without raw control characters; a `\u` escape of an unpaired
//!   surrogate is U+FFFD, as the reference reads it ([`crate::text`]);
//! - numbers as the reference decodes them: an integer literal that fits an
//!   `int64` is one, and so are `-9223372036854775808` and `-0` (the
//!   integer 0, as Go's `strconv.ParseInt` reads it); every other number
//!   (fractions, exponents, larger integers, `-0.0`) is the nearest `float64`,
//!   and one beyond the `float64` range is an error;
//! - at most 127 nested lists and objects, serde_json's limit.
//!
//! Reading directly, rather than through serde's visitor, saves the
//! visitor's indirections, which the profile of the bytes path showed as
//! a large share of an apply.

mod guided;

use super::compact::{Lazy, Member, Node, Object};
use std::borrow::Cow;
use std::ops::Range;

pub(super) use guided::{Guided, member, member_text, parse_guided, parse_patch};

/// Nested lists and objects a text may open, as serde_json counts them.
const NESTING_LIMIT: usize = 127;

/// The text is not a JSON value (the callers report `invalid JSON document`).
#[derive(Debug)]
pub(crate) struct Invalid;

pub(super) type Parsed<T> = Result<T, Invalid>;

/// Reads one JSON value that makes up the whole `text` (whitespace around it
/// aside).
pub(super) fn parse(text: &str) -> Parsed<Node<'_>> {
    let mut p = Parser::new(text);
    let v = p.value()?;
    p.end()?;
    Ok(v)
}

/// [`parse`], keeping the elements of lists that are lists or objects in
/// canonical text as that text: how a diff reads its documents
/// (`Reading::Compared`).
pub(super) fn parse_compared(text: &str) -> Parsed<Node<'_>> {
    let mut p = Parser::new(text);
    p.elements_as_text = true;
    let v = p.value()?;
    p.end()?;
    Ok(v)
}

/// A member of an object read by [`parse_members`]: its key, its value
/// and where the value's text is.
pub(crate) type SpannedMember<'a> = (Cow<'a, str>, Node<'a>, Range<usize>);

/// Reads a JSON object that makes up the whole `text` (whitespace around it
/// aside) member by member, in the order written, duplicates kept: a text
/// that holds several documents under names, each read as [`parse`] reads
/// a text of its own (the object itself does not count towards the nesting
/// limit).
///
/// With `apply` (the names of an apply's original and patch), each patch
/// is read as [`parse_patch`] reads one, and each
/// original is read with the last patch as its guide ([`guided`]): when it
/// comes after a patch, at once; when before, its text is first only
/// skipped by its brackets ([`Parser::skip_brackets`]), and read once the
/// patch is known, if the text is at least `GUIDED_AFTER` long (below
/// that, checking costs more than the guide saves).
///
/// With [`Guides::ThreeWay`], each live object that comes after a desired
/// one is read with the last desired object as its guide ([`guided`]).
pub(crate) fn parse_members<'t>(text: &'t str, guides: Guides<'_>) -> Parsed<Vec<SpannedMember<'t>>> {
    let (apply, three_way) = match guides {
        Guides::None | Guides::Diff => (None, None),
        Guides::Apply { original, patch } => (Some((original, patch)), None),
        Guides::ThreeWay { current, modified } => (None, Some((current, modified))),
    };
    let mut p = Parser::new(text);
    p.elements_as_text = matches!(guides, Guides::ThreeWay { .. } | Guides::Diff);
    let mut members: Vec<SpannedMember<'t>> = Vec::new();
    // Where the last patch is, and the originals to read once it is known.
    let mut patch_at: Option<usize> = None;
    // Where the last desired object of a three-way patch is.
    let mut modified_at: Option<usize> = None;
    let mut later = Vec::new();
    if p.next_token()? != b'{' {
        return Err(Invalid);
    }
    p.skip_ws();
    if p.peek() == Some(b'}') {
        p.pos += 1;
    } else {
        loop {
            let key = p.member_key()?;
            p.skip_ws();
            let start = p.pos;
            let original = apply.is_some_and(|(original, _)| key == original) && p.peek() == Some(b'{');
            let patch = apply.is_some_and(|(_, patch)| key == patch);
            let current = three_way.is_some_and(|(current, _)| key == current) && p.peek() == Some(b'{');
            let modified = three_way.is_some_and(|(_, modified)| key == modified);
            let v = match (patch_at, modified_at.filter(|_| current)) {
                (_, Some(g)) => read_guided(&mut p, &mut members, g, Guided::Current)?,
                (Some(g), _) if original => read_guided(&mut p, &mut members, g, Guided::Original)?,
                (None, _) if original && text.len() >= GUIDED_AFTER && p.skip_brackets() => {
                    later.push(members.len());
                    Node::Null
                }
                _ if patch => p.patch_value()?,
                _ => p.value()?,
            };
            if patch {
                patch_at = Some(members.len());
            }
            if modified {
                modified_at = Some(members.len());
            }
            members.push((key, v, start..p.pos));
            match p.next_token()? {
                b',' => {}
                b'}' => break,
                _ => return Err(Invalid),
            }
        }
    }
    p.end()?;
    if !later.is_empty() {
        let guide = patch_at.map(|g| std::mem::take(&mut members[g].1));
        for i in later {
            let mut p = Parser::new(text);
            p.pos = members[i].2.start + 1;
            members[i].1 = Node::Object(match &guide {
                Some(Node::Object(guide)) => p.object_guided(guide, Guided::Original)?,
                _ => p.object()?,
            });
            // Read, the object ends where its brackets said: the text
            // skipped then is this one valid object.
            if p.pos != members[i].2.end {
                return Err(Invalid);
            }
        }
        if let (Some(g), Some(guide)) = (patch_at, guide) {
            members[g].1 = guide;
        }
    }
    Ok(members)
}

/// The object at the cursor (at its opening brace), read with the member
/// `g` of `members` as guide, for `what`; the guide is out of the list
/// meanwhile.
fn read_guided<'t>(p: &mut Parser<'t>, members: &mut [SpannedMember<'t>], g: usize, what: Guided) -> Parsed<Node<'t>> {
    let guide = std::mem::take(&mut members[g].1);
    p.pos += 1;
    let v = match &guide {
        Node::Object(guide) => p.object_guided(guide, what),
        _ => p.object(),
    };
    members[g].1 = guide;
    Ok(Node::Object(v?))
}

/// The members of a line (a JSON object of documents) read with another
/// member as guide, by their names ([`read_guided_members`]).
///
/// [`read_guided_members`]: crate::bytes::members::read_guided_members
#[derive(Clone, Copy, Debug)]
pub enum Guides<'n> {
    /// None: each is read whole.
    None,
    /// None, each read as a diff reads its documents (`Reading::Compared`).
    Diff,
    /// An apply's original, with its patch as guide (when the original
    /// comes after the patch, or the line is long).
    Apply {
        /// The name of the original.
        original: &'n str,
        /// The name of the patch.
        patch: &'n str,
    },
    /// A three-way patch's live object, with the desired object as guide
    /// (when the live object comes after it).
    ThreeWay {
        /// The name of the live object.
        current: &'n str,
        /// The name of the desired object.
        modified: &'n str,
    },
}

/// The items of a parser's stack from `start` on (a list's elements, an
/// object's members), taken off it. A short run is moved into a vector of
/// its exact size, one allocation and one copy. A long one keeps the
/// stack's own buffer and the few items below it move to a new stack
/// instead, so that a list of a million elements is never held twice
/// (its spare room, at most what it holds, is address space the stack
/// never wrote to).
#[inline(always)]
fn take_run<T>(stack: &mut Vec<T>, start: usize) -> Vec<T> {
    if stack.len() - start < LONG_RUN { stack.split_off(start) } else { take_long_run(stack, start) }
}

#[cold]
#[inline(never)]
fn take_long_run<T>(stack: &mut Vec<T>, start: usize) -> Vec<T> {
    let mut run = std::mem::replace(stack, Vec::with_capacity(start.max(STACK_ROOM)));
    stack.extend(run.drain(..start));
    run
}

/// The length of text (quotes included) from which a string with escapes
/// is kept as its text when they are the writer's own.
const LONG_STRING: usize = 64;

/// Reads the JSON string that makes up `text`, decoded (the text of a long
/// string kept as text).
pub(super) fn parse_string(text: &str) -> Parsed<Node<'_>> {
    let mut p = Parser::scanner(text);
    if p.next_token()? != b'"' {
        return Err(Invalid);
    }
    let s = p.string()?;
    p.end()?;
    Ok(Node::Str(s))
}

/// The length from which [`take_run`] keeps the stack's buffer.
const LONG_RUN: usize = 4096;

/// The room a parser's stacks start with: that of the open lists' and
/// objects' items of most documents, so that the stacks seldom grow (and
/// move) while a text is read.
const STACK_ROOM: usize = 64;

/// The length of a case from which an apply's original that comes before
/// its patch is read with the patch as guide.
const GUIDED_AFTER: usize = 64 * 1024;

/// The elements of a list that a document of a diff reads before it keeps
/// the others as text.
const READ_ELEMENTS: usize = 64;

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Lists and objects open around the current value.
    depth: usize,
    /// Elements and members of the lists and objects being read, one stack
    /// for the whole text: each list or object is then allocated once, at
    /// its exact size, when it ends.
    items: Vec<Node<'a>>,
    members: Vec<Member<'a>>,
    /// Elements of lists that are lists or objects in canonical text are
    /// kept as that text (`Reading::Compared`).
    elements_as_text: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        let (items, members) = (Vec::with_capacity(STACK_ROOM), Vec::with_capacity(STACK_ROOM));
        Parser { text, bytes: text.as_bytes(), pos: 0, depth: 0, items, members, elements_as_text: false }
    }

    /// A parser that only checks and skips text: its stacks stay empty,
    /// never allocated, so there is nothing to drop (and it is not: a
    /// parser's drop costs more than a short scan of a key).
    fn scanner(text: &'a str) -> std::mem::ManuallyDrop<Self> {
        std::mem::ManuallyDrop::new(Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            items: Vec::new(),
            members: Vec::new(),
            elements_as_text: false,
        })
    }

    /// Only whitespace is left.
    fn end(&mut self) -> Parsed<()> {
        self.skip_ws();
        if self.pos == self.bytes.len() { Ok(()) } else { Err(Invalid) }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        // Compact text has none: one comparison says so.
        while let Some(&b) = self.bytes.get(self.pos)
            && b <= b' '
            && matches!(b, b' ' | b'\n' | b'\t' | b'\r')
        {
            self.pos += 1;
        }
    }

    /// Moves past the object or list at the cursor by its brackets and
    /// strings alone, checking nothing else: where a text that is valid
    /// JSON ends it (the caller reads it later, and then checks it ends
    /// there). False, the cursor unmoved, where the brackets do not close
    /// within the nesting limit.
    fn skip_brackets(&mut self) -> bool {
        if !matches!(self.peek(), Some(b'{' | b'[')) {
            return false;
        }
        let b = self.bytes;
        let (mut i, mut depth) = (self.pos, 0);
        while let Some(&c) = b.get(i) {
            i += 1;
            match c {
                b'"' => loop {
                    i += plain_len(&b[i..]);
                    match b.get(i) {
                        Some(b'"') => break i += 1,
                        // An escape (or a control character: invalid, found later).
                        Some(&e) => i = (i + if e == b'\\' { 2 } else { 1 }).min(b.len()),
                        None => return false,
                    }
                },
                b'{' | b'[' => {
                    depth += 1;
                    if self.depth + depth > NESTING_LIMIT {
                        return false;
                    }
                }
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = i;
                        return true;
                    }
                }
                _ => {}
            }
        }
        false
    }

    /// The next byte after whitespace, consumed.
    fn next_token(&mut self) -> Parsed<u8> {
        self.skip_ws();
        let b = self.peek().ok_or(Invalid)?;
        self.pos += 1;
        Ok(b)
    }

    fn literal(&mut self, rest: &[u8], v: Node<'a>) -> Parsed<Node<'a>> {
        if self.bytes[self.pos..].starts_with(rest) {
            self.pos += rest.len();
            Ok(v)
        } else {
            Err(Invalid)
        }
    }

    // Inlined into the loops of lists and objects (which are not inlined):
    // the common values, strings above all, are read there without a call.
    #[inline(always)]
    fn value(&mut self) -> Parsed<Node<'a>> {
        match self.next_token()? {
            b'n' => self.literal(b"ull", Node::Null),
            b't' => self.literal(b"rue", Node::Bool(true)),
            b'f' => self.literal(b"alse", Node::Bool(false)),
            b'"' => self.string_node(),
            b'[' => self.array(),
            b'{' => self.object().map(Node::Object),
            b'-' | b'0'..=b'9' => {
                self.pos -= 1;
                self.number()
            }
            _ => Err(Invalid),
        }
    }

    fn open(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > NESTING_LIMIT { Err(Invalid) } else { Ok(()) }
    }

    #[inline(never)]
    fn array(&mut self) -> Parsed<Node<'a>> {
        if self.elements_as_text {
            // The first elements are read: a short list's elements (one
            // container, its few ports) are mostly looked into anyway, and
            // kept as text they would be scanned twice.
            let mut read = 0;
            return self.list_of(|p| {
                if read < READ_ELEMENTS {
                    read += 1;
                    return p.value();
                }
                p.skip_ws();
                p.kept_or_read()
            });
        }
        self.list_of(Self::value)
    }

    /// The rest of a list whose opening bracket was read, each element
    /// read by `element` (from the whitespace before it).
    #[inline(always)]
    fn list_of(&mut self, mut element: impl FnMut(&mut Self) -> Parsed<Node<'a>>) -> Parsed<Node<'a>> {
        self.open()?;
        let start = self.items.len();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                let v = element(self)?;
                self.items.push(v);
                match self.next_token()? {
                    b',' => {}
                    b']' => break,
                    _ => return Err(Invalid),
                }
            }
        }
        self.depth -= 1;
        Ok(Node::Array(take_run(&mut self.items, start)))
    }

    #[inline(never)]
    fn object(&mut self) -> Parsed<Object<'a>> {
        self.object_of(|p, _| p.value())
    }

    /// The rest of an object whose opening brace was read, each member's
    /// value read by `member` (given the key, from the whitespace after the
    /// colon).
    #[inline(always)]
    fn object_of(&mut self, mut member: impl FnMut(&mut Self, &str) -> Parsed<Node<'a>>) -> Parsed<Object<'a>> {
        self.open()?;
        let start = self.members.len();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                let key = self.member_key()?;
                let v = member(self, &key)?;
                self.members.push((key, Some(v)));
                match self.next_token()? {
                    b',' => {}
                    b'}' => break,
                    _ => return Err(Invalid),
                }
            }
        }
        self.depth -= 1;
        Ok(Object::from_members(take_run(&mut self.members, start)))
    }

    /// An object member's key and the colon after it.
    #[inline(always)]
    fn member_key(&mut self) -> Parsed<Cow<'a, str>> {
        if self.next_token()? != b'"' {
            return Err(Invalid);
        }
        let key = self.string()?;
        if self.next_token()? != b':' {
            return Err(Invalid);
        }
        Ok(key)
    }

    /// The rest of a string whose opening quote was read.
    #[inline(always)]
    fn string(&mut self) -> Parsed<Cow<'a, str>> {
        let start = self.pos;
        self.pos += plain_len(&self.bytes[self.pos..]);
        if self.peek() == Some(b'"') {
            // SAFETY: both ends are next to a quote, an ASCII byte: they
            // are on character boundaries of the text.
            let s = unsafe { self.text.get_unchecked(start..self.pos) };
            self.pos += 1;
            return Ok(Cow::Borrowed(s));
        }
        self.escaped_string(start)
    }

    /// The rest of a string value whose opening quote was read: a long one
    /// whose escapes are all written as the writer writes them is kept as
    /// its text ([`Node::Raw`]).
    #[inline(always)]
    fn string_node(&mut self) -> Parsed<Node<'a>> {
        let start = self.pos;
        self.pos += plain_len(&self.bytes[self.pos..]);
        if self.peek() == Some(b'"') {
            // SAFETY: both ends are next to a quote, an ASCII byte: they
            // are on character boundaries of the text.
            let s = unsafe { self.text.get_unchecked(start..self.pos) };
            self.pos += 1;
            return Ok(Node::Str(Cow::Borrowed(s)));
        }
        self.escaped_node(start)
    }

    /// [`Parser::string_node`] from its first byte that is not plain.
    #[inline(never)]
    fn escaped_node(&mut self, start: usize) -> Parsed<Node<'a>> {
        if let Some(end) = self.canonical_escapes_end()
            && end - (start - 1) >= LONG_STRING
        {
            // The text with its quotes, on character boundaries (ASCII quotes).
            let text = &self.text[start - 1..end];
            self.pos = end;
            return Ok(Node::Raw(Lazy::new(text)));
        }
        self.escaped_string(start).map(Node::Str)
    }

    /// Where the string at the cursor ends (just past its closing quote),
    /// the cursor being past its plain start, when each of its escapes is
    /// the one the writer writes: `\"`, `\\`, `\b`, `\t`, `\n`, `\f`,
    /// `\r`, and `\u00xx` in lowercase for the other control characters.
    /// Such text decodes to a string that the writer writes back as it is.
    /// The cursor does not move.
    fn canonical_escapes_end(&self) -> Option<usize> {
        let b = self.bytes;
        let mut i = self.pos;
        loop {
            match b.get(i) {
                Some(b'"') => return Some(i + 1),
                Some(b'\\') => match b.get(i + 1)? {
                    b'"' | b'\\' | b'b' | b't' | b'n' | b'f' | b'r' => i += 2,
                    b'u' => {
                        let hex = |c: u8| match c {
                            b'0'..=b'9' => Some(c - b'0'),
                            b'a'..=b'f' => Some(c - b'a' + 10),
                            _ => None,
                        };
                        let &[b'0', b'0', high @ (b'0' | b'1'), low] = b.get(i + 2..i + 6)? else { return None };
                        let c = (high - b'0') << 4 | hex(low)?;
                        // These have short escapes.
                        if matches!(c, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                            return None;
                        }
                        i += 6;
                    }
                    _ => return None,
                },
                // A control character, or the end of the text.
                _ => return None,
            }
            i += plain_len(&b[i..]);
        }
    }

    /// The rest of a string from `start`, stopped at its first byte that is
    /// not plain: a backslash (then unescaped into an owned string), or an
    /// error.
    #[inline(never)]
    fn escaped_string(&mut self, start: usize) -> Parsed<Cow<'a, str>> {
        if self.peek() != Some(b'\\') {
            return Err(Invalid);
        }
        // Escaped strings are mostly long ones (JSON in an annotation).
        // The text is built as bytes: runs of whole characters of the text
        // and the characters of escapes, so it stays UTF-8.
        let mut out = Vec::with_capacity(self.pos - start + 64);
        out.extend_from_slice(&self.bytes[start..self.pos]);
        loop {
            // At a quote or a backslash.
            let b = self.bytes[self.pos];
            self.pos += 1;
            if b == b'"' {
                // SAFETY: see above: runs start after an escape and end
                // before a quote or a backslash (ASCII bytes) of UTF-8
                // text, and escapes are written as UTF-8.
                return Ok(Cow::Owned(unsafe { String::from_utf8_unchecked(out) }));
            }
            match self.bytes.get(self.pos).map(|&e| SIMPLE_ESCAPES[usize::from(e)]) {
                // The escapes of one ASCII byte, without decoding a character.
                Some(byte) if byte != 0 => {
                    self.pos += 1;
                    out.push(byte);
                }
                _ => {
                    let c = self.unicode_escape()?;
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
            }
            let run = self.pos;
            self.pos += plain_len(&self.bytes[self.pos..]);
            if !matches!(self.peek(), Some(b'"' | b'\\')) {
                return Err(Invalid);
            }
            super::print::extend_short(&mut out, &self.bytes[run..self.pos]);
        }
    }

    /// A `\u` escape, after its backslash: the character it stands for (the
    /// escapes of one ASCII byte are read with [`SIMPLE_ESCAPES`]).
    fn unicode_escape(&mut self) -> Parsed<char> {
        if self.peek() != Some(b'u') {
            return Err(Invalid);
        }
        self.pos += 1;
        let n = self.hex4()?;
        match n {
            0xD800..=0xDBFF => match self.trailing_surrogate() {
                Some(n2) => {
                    let c = 0x10000 + ((u32::from(n) - 0xD800) << 10) + (u32::from(n2) - 0xDC00);
                    char::from_u32(c).ok_or(Invalid)
                }
                // The reference reads an unpaired half as U+FFFD and the
                // escape after it on its own.
                None => Ok('\u{FFFD}'),
            },
            0xDC00..=0xDFFF => Ok('\u{FFFD}'),
            n => char::from_u32(u32::from(n)).ok_or(Invalid),
        }
    }

    /// The trailing half of a surrogate pair, when an escape of one comes
    /// next (and is then read).
    fn trailing_surrogate(&mut self) -> Option<u16> {
        let n = crate::text::trailing_half(self.bytes, self.pos)?;
        self.pos += 6;
        Some(n)
    }

    fn hex4(&mut self) -> Parsed<u16> {
        let n = crate::text::hex4(self.bytes, self.pos).ok_or(Invalid)?;
        self.pos += 4;
        Ok(n)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Parsed<Node<'a>> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let int_start = self.pos;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(Invalid);
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(Invalid),
        }
        let int_end = self.pos;
        let mut integral = true;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(Invalid);
            }
            integral = false;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(Invalid);
            }
            integral = false;
        }
        if integral {
            let digits = &self.bytes[int_start..int_end];
            if let Some(v) = int64(digits, negative) {
                return Ok(v);
            }
        }
        // The nearest float64 (the standard library rounds correctly, as
        // serde_json's `float_roundtrip` does).
        let f: f64 = self.text[start..self.pos].parse().map_err(|_| Invalid)?;
        if f.is_finite() { Ok(Node::Float(f)) } else { Err(Invalid) }
    }
}

/// The byte each escape of one ASCII byte stands for (`\n` for `n`...),
/// by the byte after the backslash; 0 for the others (`\u`, errors): the
/// reader's one list of these escapes.
const SIMPLE_ESCAPES: [u8; 256] = {
    let mut table = [0; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The length of the run of string bytes that end no string and need no
/// unescaping: up to the first quote, backslash or control character.
/// Sixteen bytes at a time on x86-64, the rest with [`plain_len_words`].
#[inline]
pub(super) fn plain_len(bytes: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        // Sixteen bytes at a time with SSE2 (part of every x86-64
        // processor), the last few a word at a time.
        let mut i = 0;
        // SAFETY: SSE2 is always there on x86-64; each load reads sixteen
        // bytes inside `bytes` (`i + 16 <= len`), unaligned loads being allowed.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let control = _mm_set1_epi8(0x1f);
            while i + 16 <= bytes.len() {
                let v = _mm_loadu_si128(bytes.as_ptr().add(i).cast());
                // A control character is its own minimum with 0x1f.
                let special = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                    _mm_cmpeq_epi8(_mm_min_epu8(v, control), v),
                );
                let marks = _mm_movemask_epi8(special);
                if marks != 0 {
                    return i + marks.trailing_zeros() as usize;
                }
                i += 16;
            }
        }
        i + plain_len_words(&bytes[i..])
    }
    #[cfg(not(target_arch = "x86_64"))]
    plain_len_words(bytes)
}

/// [`plain_len`] eight bytes at a time, the last few padded to a word with
/// a plain byte: a word has such a byte where one of its bytes, XORed with
/// `"` or `\`, is zero or is below 0x20; the lowest marked byte is the
/// first one (carries only mark bytes above a marked one).
fn plain_len_words(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(8);
    let mut i = 0;
    for chunk in &mut chunks {
        let marks = special_bytes(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        if marks != 0 {
            return i + (marks.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    let rest = chunks.remainder();
    let mut padded = [b'a'; 8];
    padded[..rest.len()].copy_from_slice(rest);
    let marks = special_bytes(u64::from_le_bytes(padded));
    i + ((marks.trailing_zeros() / 8) as usize).min(rest.len())
}

/// Whether no byte of `bytes` is a quote, a backslash or a control
/// character (a string to write as it is): words of eight bytes, the last
/// one overlapping the one before, so that no byte is looked at alone.
pub(super) fn is_plain(bytes: &[u8]) -> bool {
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
    let half = |b: &[u8]| u64::from(u32::from_le_bytes(b.try_into().expect("four bytes")));
    let n = bytes.len();
    let marks = if n >= 8 {
        let mut chunks = bytes.chunks_exact(8);
        if chunks.any(|c| special_bytes(word(c)) != 0) {
            return false;
        }
        special_bytes(word(&bytes[n - 8..]))
    } else if n >= 4 {
        special_bytes(half(&bytes[..4]) | half(&bytes[n - 4..]) << 32)
    } else {
        // Up to three bytes, padded with plain ones.
        let at = |i: usize| u64::from(*bytes.get(i).unwrap_or(&b'a'));
        special_bytes(at(0) | at(1) << 8 | at(2) << 16 | u64::from_le_bytes(*b"\0\0\0aaaaa"))
    };
    marks == 0
}

/// The high bit of each byte of `w` that is a quote, a backslash or a
/// control character, and maybe of bytes above the lowest such byte.
fn special_bytes(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH;
    below(w ^ (ONES * u64::from(b'"')), 1) | below(w ^ (ONES * u64::from(b'\\')), 1) | below(w, 0x20)
}

/// An integer literal's digits as the reference decodes them, when that is
/// an `int64` (`-0` is the integer 0, as Go's `strconv.ParseInt` reads it).
fn int64(digits: &[u8], negative: bool) -> Option<Node<'static>> {
    let mut n: u64 = 0;
    for &d in digits {
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    if negative {
        match n {
            n if n <= 1 << 63 => Some(Node::Int((n as i64).wrapping_neg())),
            _ => None,
        }
    } else {
        i64::try_from(n).ok().map(Node::Int)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json reads, in the compact document's terms.
    fn serde(text: &str) -> Option<String> {
        // serde_json refuses what the reference reads as U+FFFD.
        let v: serde_json::Value = serde_json::from_slice(&crate::text::as_go_reads(text.as_bytes())).ok()?;
        Some(format!("{:?}", <Node<'_> as crate::doc::Document>::from_json(v)))
    }

    fn ours(text: &str) -> Option<String> {
        parse(text).ok().map(|v| format!("{v:?}"))
    }

    /// A string read from `text`: whether it is kept as text, and that it
    /// is the string serde_json reads, compared and written as that one.
    fn check_string(text: &str) -> bool {
        use crate::doc::Document;
        let node = parse(text).unwrap();
        let want: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(node.as_str(), want.as_str(), "{text}");
        assert_eq!(node.kind(), crate::value::GoKind::String);
        assert_eq!(node.to_json(), want);
        let decoded = Node::from_json(want.clone());
        assert!(node.deep_eq(&decoded) && decoded.deep_eq(&node) && node.deep_eq(&node.clone()), "{text}");
        assert!(!node.deep_eq(&Node::Str(Cow::Borrowed("other"))));
        assert_eq!(node.as_member().text(), decoded.as_member().text());
        let mut out = Vec::new();
        super::super::print::write_node(&mut out, &node);
        assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&want).unwrap(), "{text}");
        matches!(node, Node::Raw(_))
    }

    #[test]
    fn long_strings_with_the_writers_escapes_are_kept_as_text() {
        let long = "x".repeat(60);
        assert!(check_string(&format!(r#""{long}\"q\\ \n\t\b\f\r\u0001\u001f\u0000""#)));
        // Escapes the writer writes otherwise: decoded at once.
        for odd in [r"\/", r"\u0041", r"\u007f", r"\u000a", r"\u001F", r"\u00e9", r"\ud83d\ude00", r"\u2028"] {
            assert!(!check_string(&format!(r#""{long}{odd}""#)), "{odd}");
        }
        assert!(!check_string(r#""short \n""#), "short");
        assert!(!check_string(&format!(r#""{long}{long}""#)), "no escape: borrowed");
        // Refused as serde_json refuses them, kept or not.
        for bad in [
            format!(r#""{long}\x""#),
            format!("\"{long}\\n\u{1}\""),
            format!(r#""{long}\n"#),
            format!(r#""{long}\u00""#),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
            assert!(serde_json::from_str::<serde_json::Value>(&bad).is_err(), "{bad}");
        }
        // In a document, as a member and in a list.
        let text = format!(r#"{{"a": "{long}\n", "b": ["{long}\t", 1]}}"#);
        let Ok(Node::Object(doc)) = parse(&text) else { panic!("an object") };
        assert!(matches!(doc.get("a"), Some(Node::Raw(_))));
        let want: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(crate::doc::Document::to_json(&Node::Object(doc.clone())), want);
        let mut out = Vec::new();
        super::super::print::write_object(&mut out, &doc);
        assert_eq!(out, serde_json::to_vec(&want).unwrap());
    }

    proptest::proptest! {
        /// Long strings of the bytes that need escapes, as serde_json writes
        /// them (the writer's escapes: kept as text) and with one escape
        /// written otherwise (decoded), read and written as serde_json reads
        /// and writes them.
        #[test]
        fn long_strings_read_and_print_as_serde_json(s in "(?s)[ab\"\\\\\n\t\u{1}\u{1f}\u{7f}é/<\u{2028}]{40,90}") {
            let text = serde_json::to_string(&s).unwrap();
            let escaped = text.contains('\\');
            proptest::prop_assert_eq!(check_string(&text), escaped && text.len() >= LONG_STRING);
            if let Some(at) = text.find("\\n") {
                let odd = format!("{}\\u000a{}", &text[..at], &text[at + 2..]);
                proptest::prop_assert!(!check_string(&odd));
            }
        }
    }

    #[test]
    fn reads_what_serde_json_reads_of_the_text_as_the_reference_reads_it() {
        // `-0` aside: serde_json reads it as the float -0, Go as the integer 0.
        let texts = [
            "0",
            "-0.0",
            "1",
            "-1",
            "01",
            "-01",
            "1.",
            ".5",
            "1.5",
            "1e5",
            "1E+5",
            "1e-5",
            "1e",
            "1e+",
            "-",
            "--1",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "123456789012345678901234567890",
            "1e308",
            "1e309",
            "-1e309",
            "1e-400",
            "0e99999999999999999999",
            "1e99999999999999999999",
            "-0e99999999999999999999",
            "2.2250738585072011e-308",
            "0.1",
            "3.141592653589793238462643383279",
            "\"\"",
            "\"a\\\"b\"",
            "\"\\u00e9\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud83d\"",
            "\"\\ude00\"",
            "\"\\ud83d\\u0041\"",
            "\"\\ud83d\\ud83d\\ude00\"",
            "\"\\ud83d\\u12\"",
            "\"\\udbff\\udfff\\udc00\"",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"\t\"",
            "\"\u{7f}\"",
            "\"é\"",
            "\"\\/\\b\\f\\n\\r\\t\"",
            "[]",
            "[ ]",
            "[1,]",
            "[,1]",
            "[1 2]",
            "{}",
            "{ }",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:1}",
            "{\"a\":1 \"b\":2}",
            "nul",
            "null",
            "nulll",
            "true",
            "tru",
            "false",
            "falsey",
            " [1, [2, {\"x\": [ ]}]] \n\r\t",
            "[1] x",
            "{\"a\":1,\"a\":2}",
            "\u{feff}{}",
            "{\"a\":\"\\u0000\"}",
            // JSON in a string (an annotation): plain runs of every length between escapes.
            r#""{\"apiVersion\":\"apps/v1\",\"metadata\":{\"name\":\"a-name-of-more-than-sixteen-bytes\"}}\n\u00e9\ud83d\ude00 and a tail after the last escape""#,
            r#""0123456789abcdef\\0123456789abcdef0123456789abcdef\/x\t""#,
        ];
        for t in texts {
            assert_eq!(ours(t), serde(t), "{t:?}");
        }
    }

    proptest::proptest! {
        /// The word-at-a-time scan stops where a byte-by-byte one stops.
        #[test]
        fn plain_runs_end_at_the_first_special_byte(
            bytes in proptest::collection::vec(
                // Mostly plain bytes, so that runs are long enough for every scan.
                proptest::prop_oneof![20 => b'a'..=b'z', 1 => proptest::prelude::any::<u8>()],
                0..80,
            ),
        ) {
            let want = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len());
            proptest::prop_assert_eq!(plain_len(&bytes), want);
            proptest::prop_assert_eq!(plain_len_words(&bytes), want);
            proptest::prop_assert_eq!(is_plain(&bytes), want == bytes.len());
        }
    }

    #[test]
    fn long_lists_and_objects_keep_what_the_stacks_held_below_them() {
        // Runs from LONG_RUN on take the stack's buffer: the items of the
        // lists and objects around them stay where they were.
        let n = LONG_RUN + 3;
        let list = |from: usize| format!("[{}]", (from..from + n).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
        let object = format!("{{{}}}", (0..n).map(|i| format!("\"k{i:05}\":{i}")).collect::<Vec<_>>().join(","));
        let text = format!(
            r#"[1, {{"a": [2, {long}, {{"b": {object}, "c": [3]}}], "z": {long2}}}, {object}, 4, {long3}]"#,
            long = list(0),
            long2 = list(n),
            long3 = list(2 * n),
        );
        assert_eq!(ours(&text), serde(&text));
        assert_eq!(ours(&list(7)), serde(&list(7)));
    }

    /// An apply's line whose original comes first and is long is first
    /// skipped by its brackets, then read with the patch as guide: it is
    /// accepted exactly when serde_json accepts the line, whatever its
    /// brackets and strings hide, and reads to the same members.
    #[test]
    fn long_originals_before_their_patch_read_as_serde_json_reads_the_line() {
        let guides = Guides::Apply { original: "original", patch: "patch" };
        let filler = format!("[{}]", vec!["\"x\""; GUIDED_AFTER / 4].join(","));
        let line = |original: &str| format!(r#"{{"original":{original},"patch":{{"b":[1]}},"pad":{filler}}}"#);
        // The text of the original, as read.
        let original_text = |text: &str| {
            let members = parse_members(text, guides).ok()?;
            members.into_iter().find(|(k, ..)| k == "original").map(|(.., span)| text[span].to_string())
        };
        for original in [
            r#"{"a":1,"b":[2]}"#,
            r#"{"a":"]}","b":[2]}"#,
            r#"{"a":""]}","b":[2]}"#,
            r#"{"a":"\","b":[2]}"#,
            r#"{"a":{"x":[{}]},"b":[2]}"#,
            r#"{"b":[2],"a":1}"#,
            r#"{ "a" : 1 , "b" : [ 2 ] }"#,
            // Not JSON, though their brackets close:
            r#"{"a":1,"b":[2]]}"#,
            r#"{"a":1,"b":[2}}"#,
            r#"{"a":1 "b":[2]}"#,
            r#"{"a":"\q","b":[2]}"#,
            "{\"a\":\"\u{1}\",\"b\":[2]}",
            r#"{"a":1,"b":[2],}"#,
            r#"{"a":tru,"b":[2]}"#,
            // Brackets that do not close where JSON's would:
            r#"{"a":1,"b":[2]"#,
            r#"{"a":"1,"b":[2]}"#,
            r#"{"a":1,"b":[2]}}"#,
        ] {
            let text = line(original);
            assert!(text.len() >= GUIDED_AFTER);
            let want = serde(&text).map(|_| original.to_string());
            assert_eq!(original_text(&text), want, "{original}");
        }
        let deep = |n: usize| format!(r#"{{"a":{}1{},"b":[2]}}"#, "[".repeat(n), "]".repeat(n));
        for n in [125, 126, 127, 200] {
            let text = line(&deep(n));
            assert_eq!(original_text(&text).is_some(), serde(&deep(n)).is_some(), "depth {n}");
        }
    }

    #[test]
    fn negative_zero_is_the_integer_zero_as_go_reads_it() {
        assert_eq!(ours("-0").as_deref(), Some("Int(0)"));
        assert_eq!(ours("[-0, 0, -0.0, -0e0]"), Some(format!("{:?}", parse("[0, 0, -0.0, -0.0]").unwrap())));
        assert_ne!(ours("-0.0").as_deref(), Some("Int(0)"));
    }

    #[test]
    fn nesting_stops_where_serde_json_stops() {
        for depth in [126, 127, 128, 129, 10_000] {
            let t = "[".repeat(depth) + &"]".repeat(depth);
            assert_eq!(ours(&t).is_some(), serde(&t).is_some(), "{depth}");
            let t = "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth);
            assert_eq!(ours(&t).is_some(), serde(&t).is_some(), "{depth}");
        }
        assert!(ours(&("[".repeat(127) + &"]".repeat(127))).is_some());
    }
}
