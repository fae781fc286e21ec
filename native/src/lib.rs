//! shardwise's optional fast YAML reader.
//!
//! `load(text, base, linedict, plain, fallback)` parses `text` with libyaml's parser (the
//! `unsafe-libyaml` crate: libyaml translated to Rust, the same events PyYAML's C extension gets
//! from libyaml) and builds the documents the way `shardwise.rules.adapters.yamlsrc._load_events` does:
//! mappings as `linedict` instances with `line` and `key_lines`, sequences as lists, quoted
//! scalars and plain scalars that cannot be anything but text as `str`, and every other plain
//! scalar through `plain(text)` (PyYAML's resolvers and constructors, in Python). `seen`, when given,
//! is `plain`'s own memo (scalar as written -> its value): a scalar it holds takes that value without
//! the call (manifests repeat the same keys, flags and words file after file).
//!
//! Anchors and aliases are taken as `yamlpy.load_events` takes them (hostile18): an alias is the very
//! object its anchor built, at the anchor's line, and adds that node's expanded size (values and
//! characters of scalar text) to what the aliases add in the text, bounded by `MAX_EXPANDED_VALUES`
//! and `MAX_EXPANDED_CHARS` (yamlsrc's bounds, exported here so a test holds them equal).
//!
//! It only takes the common path. Anything else (a parse error, an explicit tag, a `<<` merge key,
//! a collection or duplicate key, a scalar `plain` cannot construct, collections nested more than
//! 500 deep, aliases past the bounds, an alias to an anchor not ended or never written, an anchor
//! written twice in a document) makes it return `None`, and the caller reads the text with its
//! Python reader, which gives the same values and reports errors in its own words. On success it
//! returns `(documents, first_lines)`.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::mem::MaybeUninit;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use unsafe_libyaml as y;

const MAP_TAG: &[u8] = b"tag:yaml.org,2002:map";
const SEQ_TAG: &[u8] = b"tag:yaml.org,2002:seq";
const STR_TAG: &[u8] = b"tag:yaml.org,2002:str";
/// Collections nested deeper than this are left to the Python reader: PyYAML's libyaml (0.2.6) stops
/// at 1,000 levels with an error, the parser here (libyaml 0.2.5) has no limit.
const MAX_DEPTH: usize = 500;
/// What the aliases of a text may add: values (mappings, lists and scalars, keys included) and characters of
/// scalar text, each alias counting its anchor's node expanded (`yamlsrc.MAX_EXPANDED_VALUES`, `_CHARS`).
const MAX_EXPANDED_VALUES: u64 = 1_000_000;
const MAX_EXPANDED_CHARS: u64 = 32 * 1024 * 1024;

/// First characters of a plain scalar that one of PyYAML's implicit resolvers (bool, float, int,
/// merge, null, timestamp, value) may claim; any other plain scalar is text.
fn may_resolve(first: Option<&u8>) -> bool {
    match first {
        None => true, // the empty scalar is null
        Some(c) => b"yYnNtTfFoO-+0123456789.<~=".contains(c),
    }
}

/// A plain decimal integer without a leading zero (a leading 0 is octal in YAML 1.1).
fn is_decimal(value: &[u8]) -> bool {
    !value.is_empty() && value.iter().all(u8::is_ascii_digit) && (value.len() == 1 || value[0] != b'0')
}

/// The keys of mappings kept by the key cache: at most this many, of at most this many bytes each.
const KEYS_MOST: usize = 4096;
const KEY_MOST_BYTES: usize = 64;

thread_local! {
    /// A key's text -> the interned str of that text (a strong reference, kept for the process, as the interpreter
    /// keeps the strings it interns): manifests write the same keys file after file (`apiVersion`, `metadata`).
    static KEYS: RefCell<HashMap<Box<[u8]>, *mut ffi::PyObject>> = RefCell::new(HashMap::new());
}

/// A mapping's key that is text by construction (quoted, or plain and claimed by no resolver; a plain key a resolver
/// may claim is `plain`'s answer, as before): the interned str, made once per process (`KEYS`). A key made
/// afresh for every mapping was an allocation, a copy, a hash when it went into the dict and a free, and, not being
/// the interned str that a key written in the rules' code is, each look-up of it by that key compared the characters;
/// the interned one is found by identity (lintspeed23). The same text either way: a str's identity decides nothing in
/// the rules.
fn key_text<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyAny> {
    if text.len() > KEY_MOST_BYTES {
        return PyString::new(py, text).into_any();
    }
    KEYS.with(|cell| {
        let mut keys = cell.borrow_mut();
        if let Some(&ptr) = keys.get(text.as_bytes()) {
            return unsafe { Bound::from_borrowed_ptr(py, ptr) };
        }
        let key = PyString::intern(py, text).into_any();
        if keys.len() < KEYS_MOST {
            keys.insert(text.as_bytes().into(), key.clone().into_ptr());
        }
        key
    })
}

/// An ended anchor: its value, the values and characters of its node expanded, its line, and whether a collection.
type Anchor<'py> = (Bound<'py, PyAny>, u64, u64, i64, bool);

enum Frame<'py> {
    Map { dict: Bound<'py, PyDict>, key_lines: Bound<'py, PyDict> },
    Seq(Bound<'py, PyList>),
}

/// What one event asks of the builder.
enum Step<'py> {
    Skip,
    Value(Bound<'py, PyAny>, bool), // the value, and whether it is a collection
    Open(Frame<'py>),
    Close,
    Alias,
    DocStart,
    DocEnd,
    End,
    Fallback,
}

unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(ptr, len)
    }
}

unsafe fn c_bytes<'a>(ptr: *const u8) -> Option<&'a [u8]> {
    if ptr.is_null() {
        return None;
    }
    let mut n = 0;
    while *ptr.add(n) != 0 {
        n += 1;
    }
    Some(std::slice::from_raw_parts(ptr, n))
}

/// The characters of `text` if libyaml's reader takes every one of them (its `yaml_parser_update_buffer`: tab, line
/// feed, carriage return, the printable ASCII, U+0085, U+00A0-U+D7FF, U+E000-U+FFFD and U+10000 up; a `str` holds no
/// surrogate), else `None`: the reader would stop at that character with an error.
fn readable_chars(text: &str) -> Option<u64> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut ascii = true;
    let bytes = text.as_bytes();
    let mut chunks = bytes.chunks_exact(8);
    let mut look = |part: &[u8]| -> bool {
        for &b in part {
            if b < 0x20 {
                if b != b'\t' && b != b'\n' && b != b'\r' {
                    return false;
                }
            } else if b == 0x7F {
                return false;
            } else if b >= 0x80 {
                ascii = false;
            }
        }
        true
    };
    for chunk in &mut chunks {
        let x = u64::from_ne_bytes(chunk.try_into().unwrap_or([0; 8]));
        // a byte under 0x20, or over 0x7E (the high bit, or 0x7F + 1), flags the chunk (never a false "none": a
        // borrow or carry follows a byte that flags it already); a flagged chunk is looked at byte by byte
        let low = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let high = (x.wrapping_add(ONES) | x) & HIGH;
        if low | high != 0 && !look(chunk) {
            return None;
        }
    }
    if !look(chunks.remainder()) {
        return None;
    }
    if ascii {
        return Some(text.len() as u64);
    }
    let mut n = 0u64;
    for c in text.chars() {
        let v = c as u32;
        if (0x80..=0x9F).contains(&v) && v != 0x85 || v == 0xFFFE || v == 0xFFFF {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// libyaml's working buffer (`yaml_buffer_t<yaml_char_t>`; `#[repr(C)]`).
#[repr(C)]
#[derive(Clone, Copy)]
struct Buffer {
    start: *mut u8,
    end: *mut u8,
    pointer: *mut u8,
    last: *mut u8,
}

/// The head of `unsafe_libyaml::yaml_parser_t` (0.2.11, pinned by Cargo.lock; `#[repr(C)]`) up to its position mark:
/// the fields are the crate's own, so the reader's fields are reached through this copy of their layout, checked field
/// by field against what `yaml_parser_initialize` and `yaml_parser_set_input_string` are known to have written before
/// it is used (`Parser::read_whole`).
#[repr(C)]
struct ParserHead {
    error: u32,
    problem: *const u8,
    problem_offset: u64,
    problem_value: i32,
    problem_mark: [u64; 3],
    context: *const u8,
    context_mark: [u64; 3],
    read_handler: *const u8,
    read_handler_data: *mut u8,
    input: [*const u8; 3], // the string input: start, end, current
    eof: u8,
    buffer: Buffer,
    unread: u64,
    raw_buffer: Buffer,
    encoding: u32,
    offset: u64,
    mark: [u64; 3],
}

const _: () = assert!(std::mem::size_of::<ParserHead>() < std::mem::size_of::<y::yaml_parser_t>());

/// libyaml's `INPUT_RAW_BUFFER_SIZE` and `INPUT_BUFFER_SIZE` (api.rs), what `yaml_parser_initialize` allocates.
const RAW_BUFFER_SIZE: usize = 16384;
const BUFFER_SIZE: usize = RAW_BUFFER_SIZE * 3;

struct Parser {
    raw: Box<MaybeUninit<y::yaml_parser_t>>,
    /// The text as libyaml's reader leaves it in its working buffer, and the buffer it allocated (given back to it
    /// before `yaml_parser_delete` frees it), where the text was handed over whole (`read_whole`).
    whole: Option<(Vec<u8>, Buffer)>,
}

impl Parser {
    /// A parser over `input` (which must outlive it).
    unsafe fn new(input: &str) -> Option<Parser> {
        let mut raw: Box<MaybeUninit<y::yaml_parser_t>> = Box::new(MaybeUninit::uninit());
        if y::yaml_parser_initialize(raw.as_mut_ptr()).fail {
            return None;
        }
        y::yaml_parser_set_encoding(raw.as_mut_ptr(), y::YAML_UTF8_ENCODING);
        y::yaml_parser_set_input_string(raw.as_mut_ptr(), input.as_ptr(), input.len() as _);
        let mut parser = Parser { raw, whole: None };
        parser.read_whole(input);
        Some(parser)
    }

    /// Hands libyaml's scanner the text whole, as its reader would leave it, so the reader never runs. The reader
    /// (`yaml_parser_update_buffer`) copies the input into a raw buffer 16 KiB at a time and decodes it character by
    /// character into the working buffer, checking each is UTF-8 and one it takes: about 70 instructions a byte,
    /// 4 % of a lint of the generated manifests (lintspeed23). A `str` is UTF-8 already; where every character is one
    /// the reader takes (`readable_chars`), the working buffer it would end with is the text's bytes and a NUL, its
    /// count of unread characters the text's characters and the NUL, and its end-of-input flag set with the raw
    /// buffer empty, from which point the reader returns at once (`update_buffer`'s first test). Anything else, or
    /// a parser whose fields are not where `ParserHead` says (checked against the values they must hold now), keeps
    /// the reader, which then reads the text as before.
    unsafe fn read_whole(&mut self, input: &str) {
        let chars = match readable_chars(input) {
            Some(n) => n,
            None => return,
        };
        let head = &mut *(self.raw.as_mut_ptr() as *mut ParserHead);
        let at = input.as_ptr();
        let laid_out = head.error == 0
            && head.problem.is_null()
            && head.context.is_null()
            && !head.read_handler.is_null()
            && head.read_handler_data == self.raw.as_mut_ptr() as *mut u8
            && head.input == [at, at.wrapping_add(input.len()), at]
            && head.eof == 0
            && !head.buffer.start.is_null()
            && head.buffer.end == head.buffer.start.wrapping_add(BUFFER_SIZE)
            && head.buffer.pointer == head.buffer.start
            && head.buffer.last == head.buffer.start
            && head.unread == 0
            && !head.raw_buffer.start.is_null()
            && head.raw_buffer.end == head.raw_buffer.start.wrapping_add(RAW_BUFFER_SIZE)
            && head.raw_buffer.pointer == head.raw_buffer.start
            && head.raw_buffer.last == head.raw_buffer.start
            && head.encoding == y::YAML_UTF8_ENCODING as u32
            && head.offset == 0
            && head.mark == [0, 0, 0];
        if !laid_out {
            return;
        }
        // the text, the NUL the reader appends at the end of input, and zeros past it (the reader's buffer is larger
        // than what it fills; the scanner reads no further than the NUL)
        let mut text = Vec::with_capacity(input.len() + 8);
        text.extend_from_slice(input.as_bytes());
        text.resize(input.len() + 8, 0);
        let start = text.as_mut_ptr();
        let allocated = head.buffer;
        head.buffer = Buffer { start, end: start.add(text.len()), pointer: start, last: start.add(input.len() + 1) };
        head.unread = chars + 1;
        head.eof = 1;
        self.whole = Some((text, allocated));
    }
}

impl Drop for Parser {
    fn drop(&mut self) {
        unsafe {
            if let Some((_, allocated)) = &self.whole {
                (*(self.raw.as_mut_ptr() as *mut ParserHead)).buffer = *allocated;
            }
            y::yaml_parser_delete(self.raw.as_mut_ptr())
        }
    }
}

#[pyfunction]
#[pyo3(signature = (text, base, linedict, plain, fallback, seen=None))]
fn load<'py>(
    py: Python<'py>,
    text: &str,
    base: i64,
    linedict: &Bound<'py, PyAny>,
    plain: &Bound<'py, PyAny>,
    fallback: &Bound<'py, PyAny>,
    seen: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    // A byte order mark may open the stream (YAML 1.2, 5.2) and is no content. The parser here took `\u{feff}a: 1`
    // but failed on `\u{feff}---` (a document start right after the mark), leaving such a file to the Python
    // reader (cfchase/basic-kserve-vllm). It holds no line break: the lines stay the same.
    let input = text.strip_prefix('\u{feff}').unwrap_or(text);
    let new_linedict = linedict.getattr("__new__")?;
    let mut parser = match unsafe { Parser::new(input) } {
        Some(p) => p,
        None => return Ok(None),
    };
    let line_attr = PyString::new(py, "line");
    let key_lines_attr = PyString::new(py, "key_lines");

    let docs = PyList::empty(py);
    let starts = PyList::empty(py);
    let mut stack: Vec<(Option<Frame>, Option<Bound<PyAny>>, i64)> = Vec::new();
    let mut cur: Option<Frame> = None;
    let mut key: Option<Bound<PyAny>> = None;
    let mut key_line: i64 = 0;
    let mut root: Option<Bound<PyAny>> = None;
    // each ended anchor's (value, values, characters, line, a collection?); the anchors written in this document;
    // per open collection its anchor, line and the values and characters counted before it began; the values and
    // characters read so far (aliases expanded) and what the aliases added (the bound's count, over the text)
    let mut anchors: HashMap<Vec<u8>, Anchor> = HashMap::new();
    let mut named: HashSet<Vec<u8>> = HashSet::new();
    let mut open: Vec<(Option<Vec<u8>>, i64, u64, u64)> = Vec::new();
    let (mut values, mut chars, mut added, mut added_chars) = (0u64, 0u64, 0u64, 0u64);
    // how many of the open collections carry an anchor: a scalar's characters are counted only inside one, or where
    // the scalar has its own anchor (`chars` is read only as the difference over an anchored node, so the scalars
    // outside every anchored node need not be counted; most texts have no anchor, and counting every scalar's
    // characters was about 0.3 % of a lint's instructions: lintspeed21)
    let mut anchored_open: usize = 0;

    loop {
        let mut event: MaybeUninit<y::yaml_event_t> = MaybeUninit::uninit();
        if unsafe { y::yaml_parser_parse(parser.raw.as_mut_ptr(), event.as_mut_ptr()) }.fail {
            return Ok(None);
        }
        let ev = unsafe { event.assume_init_mut() };
        let line = ev.start_mark.line as i64 + 1 + base;
        let at_key = key.is_none() && matches!(cur, Some(Frame::Map { .. }));
        let step: PyResult<Step> = (|| unsafe {
            match ev.type_ {
                y::YAML_STREAM_START_EVENT => Ok(Step::Skip),
                y::YAML_DOCUMENT_START_EVENT => Ok(Step::DocStart),
                y::YAML_DOCUMENT_END_EVENT => Ok(Step::DocEnd),
                y::YAML_STREAM_END_EVENT => Ok(Step::End),
                y::YAML_ALIAS_EVENT => Ok(Step::Alias),
                y::YAML_SCALAR_EVENT => {
                    let s = ev.data.scalar;
                    let value = bytes(s.value, s.length as usize);
                    let text = match std::str::from_utf8(value) {
                        Ok(t) => t,
                        Err(_) => return Ok(Step::Fallback),
                    };
                    match c_bytes(s.tag) {
                        Some(tag) if tag != STR_TAG => return Ok(Step::Fallback),
                        Some(_) => return Ok(Step::Value(PyString::new(py, text).into_any(), false)),
                        None => {}
                    }
                    if s.plain_implicit && is_decimal(value) {
                        // PyYAML resolves it as an int (no float, bool or timestamp form is all digits)
                        if let Ok(n) = text.parse::<i64>() {
                            return Ok(Step::Value(n.into_pyobject(py)?.into_any(), false));
                        }
                    }
                    if s.plain_implicit && may_resolve(value.first()) {
                        let word = PyString::new(py, text);
                        if let Some(memo) = seen {
                            if let Some(got) = memo.get_item(&word)? {
                                return Ok(Step::Value(got, false)); // what `plain` answered before
                            }
                        }
                        let got = plain.call1((word,))?;
                        if got.is(fallback) {
                            return Ok(Step::Fallback);
                        }
                        return Ok(Step::Value(got, false));
                    }
                    if at_key {
                        return Ok(Step::Value(key_text(py, text), false));
                    }
                    Ok(Step::Value(PyString::new(py, text).into_any(), false))
                }
                y::YAML_MAPPING_START_EVENT => {
                    let m = ev.data.mapping_start;
                    if c_bytes(m.tag).is_some_and(|t| t != MAP_TAG) {
                        return Ok(Step::Fallback);
                    }
                    let obj = new_linedict.call1((linedict,))?;
                    obj.setattr(&line_attr, line)?;
                    let key_lines = PyDict::new(py);
                    obj.setattr(&key_lines_attr, &key_lines)?;
                    let dict = obj.downcast_into::<PyDict>()?;
                    Ok(Step::Open(Frame::Map { dict, key_lines }))
                }
                y::YAML_SEQUENCE_START_EVENT => {
                    let q = ev.data.sequence_start;
                    if c_bytes(q.tag).is_some_and(|t| t != SEQ_TAG) {
                        return Ok(Step::Fallback);
                    }
                    Ok(Step::Open(Frame::Seq(PyList::empty(py))))
                }
                y::YAML_MAPPING_END_EVENT | y::YAML_SEQUENCE_END_EVENT => Ok(Step::Close),
                _ => Ok(Step::Skip),
            }
        })();
        let is_root_value = cur.is_none()
            && matches!(
                ev.type_,
                y::YAML_SCALAR_EVENT | y::YAML_MAPPING_START_EVENT | y::YAML_SEQUENCE_START_EVENT | y::YAML_ALIAS_EVENT
            );
        // a key written `<<` (the merge key, or that text quoted): left to the Python reader, as any value equal to it
        let merge_text = ev.type_ == y::YAML_SCALAR_EVENT
            && unsafe { bytes(ev.data.scalar.value, ev.data.scalar.length as usize) } == b"<<";
        // the anchor an event writes, or the one an alias names; a scalar's characters (what the bound counts)
        let (anchor, scalar_chars) = unsafe {
            match ev.type_ {
                y::YAML_SCALAR_EVENT => {
                    let anchor = c_bytes(ev.data.scalar.anchor).map(<[u8]>::to_vec);
                    let chars = if anchored_open > 0 || anchor.is_some() {
                        let value = bytes(ev.data.scalar.value, ev.data.scalar.length as usize);
                        value.iter().filter(|b| (**b as i8) >= -0x40).count() as u64
                    } else {
                        0
                    };
                    (anchor, chars)
                }
                y::YAML_MAPPING_START_EVENT => (c_bytes(ev.data.mapping_start.anchor).map(<[u8]>::to_vec), 0),
                y::YAML_SEQUENCE_START_EVENT => (c_bytes(ev.data.sequence_start.anchor).map(<[u8]>::to_vec), 0),
                y::YAML_ALIAS_EVENT => (c_bytes(ev.data.alias.anchor).map(<[u8]>::to_vec), 0),
                _ => (None, 0),
            }
        };
        unsafe { y::yaml_event_delete(ev) };
        let step = step?;
        if is_root_value {
            starts.append(line)?;
        }
        let mut value_line = line;
        let (val, collection) = match step {
            Step::Skip => continue,
            Step::Fallback => return Ok(None),
            Step::DocStart => {
                cur = None;
                key = None;
                stack.clear();
                anchors.clear();
                named.clear();
                open.clear();
                anchored_open = 0;
                continue;
            }
            Step::DocEnd => {
                match root.take() {
                    Some(r) => docs.append(r)?,
                    None => docs.append(py.None())?,
                }
                continue;
            }
            Step::End => {
                drop(parser);
                return Ok(Some(PyTuple::new(py, [docs.into_any(), starts.into_any()])?));
            }
            Step::Open(frame) => {
                if stack.len() >= MAX_DEPTH {
                    return Ok(None); // the Python reader's libyaml refuses nesting past 1,000 levels
                }
                if let Some(name) = &anchor {
                    if !named.insert(name.clone()) {
                        return Ok(None); // an anchor written twice: PyYAML's composer says so
                    }
                }
                if anchor.is_some() {
                    anchored_open += 1;
                }
                open.push((anchor, line, values, chars)); // not an anchor until it ends: an alias inside falls back
                values += 1;
                stack.push((cur.take(), key.take(), key_line));
                cur = Some(frame);
                continue;
            }
            Step::Close => {
                let done = match cur.take() {
                    Some(Frame::Map { dict, .. }) => dict.into_any(),
                    Some(Frame::Seq(list)) => list.into_any(),
                    None => return Ok(None),
                };
                let (c, k, kl) = match stack.pop() {
                    Some(top) => top,
                    None => return Ok(None),
                };
                cur = c;
                key = k;
                key_line = kl;
                match open.pop() {
                    Some((Some(name), start, values0, chars0)) => {
                        anchored_open -= 1;
                        anchors.insert(name, (done.clone(), values - values0, chars - chars0, start, true));
                    }
                    Some(_) => {}
                    None => return Ok(None),
                }
                (done, true)
            }
            Step::Alias => {
                let found = match anchor.as_ref().and_then(|name| anchors.get(name)) {
                    Some(f) => f,
                    None => return Ok(None), // never written, or a collection not ended (it would contain itself)
                };
                let (v, n, c, at, coll) = (found.0.clone(), found.1, found.2, found.3, found.4);
                values += n;
                chars += c;
                added += n;
                added_chars += c;
                if added > MAX_EXPANDED_VALUES || added_chars > MAX_EXPANDED_CHARS {
                    return Ok(None); // the Python reader refuses it in its words
                }
                value_line = at;
                (v, coll)
            }
            Step::Value(v, c) => {
                values += 1;
                chars += scalar_chars;
                if let Some(name) = anchor {
                    if merge_text || !named.insert(name.clone()) {
                        return Ok(None); // `<<` through an alias, or an anchor written twice
                    }
                    anchors.insert(name, (v.clone(), 1, scalar_chars, line, false));
                }
                (v, c)
            }
        };
        match &cur {
            None => root = Some(val),
            Some(Frame::Seq(list)) => list.append(val)?,
            Some(Frame::Map { dict, key_lines }) => match key.take() {
                None => {
                    // a key: only a scalar that is not `<<` and not written before in this mapping
                    // a key written before in this mapping is found when its value is set (the mapping does not grow)
                    if collection || merge_text {
                        return Ok(None);
                    }
                    key = Some(val);
                    key_line = value_line;
                }
                Some(k) => {
                    let size = dict.len();
                    dict.set_item(&k, val)?;
                    if dict.len() == size {
                        return Ok(None); // a duplicate key: the Python reader reports it
                    }
                    if k.is_exact_instance_of::<PyString>() {
                        key_lines.set_item(&k, key_line)?;
                    }
                }
            },
        }
    }
}

#[pymodule]
fn _yamlfast(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add("MAX_EXPANDED_VALUES", MAX_EXPANDED_VALUES)?;
    m.add("MAX_EXPANDED_CHARS", MAX_EXPANDED_CHARS)?;
    Ok(())
}
