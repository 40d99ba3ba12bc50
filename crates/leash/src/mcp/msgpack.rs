//! A small MessagePack encoder and decoder: the part of the format Neovim's RPC speaks
//! (nil, booleans, integers, floats, strings, binary, arrays, maps and the extension
//! types Neovim uses for its handles). The decoder reads from a growing buffer: it says
//! when a message is not complete yet, and refuses what is too deep or too large rather
//! than trusting a length it was sent.

/// One MessagePack value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    /// An unsigned integer above `i64::MAX`.
    UInt(u64),
    Float(f64),
    /// Text; bytes that are not UTF-8 are replaced (Neovim sends byte strings as `str`).
    Str(String),
    Bin(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
    /// An extension type (Neovim's buffer, window and tab page handles).
    Ext(i8, Vec<u8>),
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

/// The most bytes one message may take: far more than any answer of leash's calls.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// The deepest nesting the decoder follows.
pub const MAX_DEPTH: usize = 64;

/// Why bytes are not a MessagePack value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("byte 0x{0:02x} starts no MessagePack value")]
    Reserved(u8),
    #[error("a value nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("a value declares {0} bytes, more than the {MAX_MESSAGE_BYTES} a message may take")]
    TooLarge(usize),
}

/// Appends the encoding of `v` to `out`.
pub fn encode(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Nil => out.push(0xc0),
        Value::Bool(false) => out.push(0xc2),
        Value::Bool(true) => out.push(0xc3),
        Value::Int(i) => encode_int(*i, out),
        Value::UInt(u) => {
            out.push(0xcf);
            out.extend_from_slice(&u.to_be_bytes());
        }
        Value::Float(f) => {
            out.push(0xcb);
            out.extend_from_slice(&f.to_be_bytes());
        }
        Value::Str(s) => {
            let n = s.len();
            match n {
                0..=31 => out.push(0xa0 | n as u8),
                32..=0xff => out.extend_from_slice(&[0xd9, n as u8]),
                0x100..=0xffff => {
                    out.push(0xda);
                    out.extend_from_slice(&(n as u16).to_be_bytes());
                }
                _ => {
                    out.push(0xdb);
                    out.extend_from_slice(&(n as u32).to_be_bytes());
                }
            }
            out.extend_from_slice(s.as_bytes());
        }
        Value::Bin(b) => {
            let n = b.len();
            match n {
                0..=0xff => out.extend_from_slice(&[0xc4, n as u8]),
                0x100..=0xffff => {
                    out.push(0xc5);
                    out.extend_from_slice(&(n as u16).to_be_bytes());
                }
                _ => {
                    out.push(0xc6);
                    out.extend_from_slice(&(n as u32).to_be_bytes());
                }
            }
            out.extend_from_slice(b);
        }
        Value::Array(items) => {
            header(items.len(), 0x90, 0xdc, out);
            for item in items {
                encode(item, out);
            }
        }
        Value::Map(pairs) => {
            header(pairs.len(), 0x80, 0xde, out);
            for (k, v) in pairs {
                encode(k, out);
                encode(v, out);
            }
        }
        Value::Ext(kind, data) => {
            let n = data.len();
            match n {
                1 => out.push(0xd4),
                2 => out.push(0xd5),
                4 => out.push(0xd6),
                8 => out.push(0xd7),
                16 => out.push(0xd8),
                0..=0xff => out.extend_from_slice(&[0xc7, n as u8]),
                0x100..=0xffff => {
                    out.push(0xc8);
                    out.extend_from_slice(&(n as u16).to_be_bytes());
                }
                _ => {
                    out.push(0xc9);
                    out.extend_from_slice(&(n as u32).to_be_bytes());
                }
            }
            out.push(*kind as u8);
            out.extend_from_slice(data);
        }
    }
}

/// An array's or a map's length: `fix` for up to 15, `wide` (16 bits) or `wide + 1` (32 bits).
fn header(n: usize, fix: u8, wide: u8, out: &mut Vec<u8>) {
    match n {
        0..=15 => out.push(fix | n as u8),
        16..=0xffff => {
            out.push(wide);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        _ => {
            out.push(wide + 1);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
    }
}

fn encode_int(i: i64, out: &mut Vec<u8>) {
    match i {
        0..=0x7f => out.push(i as u8),
        -32..=-1 => out.push(i as i8 as u8),
        0x80..=0xff => out.extend_from_slice(&[0xcc, i as u8]),
        0x100..=0xffff => {
            out.push(0xcd);
            out.extend_from_slice(&(i as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(0xce);
            out.extend_from_slice(&(i as u32).to_be_bytes());
        }
        -0x80..=-33 => out.extend_from_slice(&[0xd0, i as i8 as u8]),
        -0x8000..=-0x81 => {
            out.push(0xd1);
            out.extend_from_slice(&(i as i16).to_be_bytes());
        }
        -0x8000_0000..=-0x8001 => {
            out.push(0xd2);
            out.extend_from_slice(&(i as i32).to_be_bytes());
        }
        _ => {
            out.push(0xd3);
            out.extend_from_slice(&i.to_be_bytes());
        }
    }
}

/// The first value in `buf` and how many bytes it took, or `None` when `buf` ends before
/// the value does (more bytes are needed).
pub fn decode(buf: &[u8]) -> Result<Option<(Value, usize)>, DecodeError> {
    let mut r = Reader { buf, pos: 0 };
    match r.value(0) {
        Ok(v) => Ok(Some((v, r.pos))),
        Err(Short::More) => Ok(None),
        Err(Short::Bad(e)) => Err(e),
    }
}

/// Why a value could not be read: the buffer ends first, or the bytes are wrong.
enum Short {
    More,
    Bad(DecodeError),
}

impl From<DecodeError> for Short {
    fn from(e: DecodeError) -> Short {
        Short::Bad(e)
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Short> {
        if n > MAX_MESSAGE_BYTES {
            return Err(DecodeError::TooLarge(n).into());
        }
        let end = self.pos.checked_add(n).ok_or(Short::More)?;
        let bytes = self.buf.get(self.pos..end).ok_or(Short::More)?;
        self.pos = end;
        Ok(bytes)
    }

    fn byte(&mut self) -> Result<u8, Short> {
        Ok(self.take(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Short> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn len(&mut self, bytes: usize) -> Result<usize, Short> {
        Ok(match bytes {
            1 => self.byte()? as usize,
            2 => u16::from_be_bytes(self.array()?) as usize,
            _ => u32::from_be_bytes(self.array()?) as usize,
        })
    }

    fn text(&mut self, n: usize) -> Result<Value, Short> {
        Ok(Value::Str(String::from_utf8_lossy(self.take(n)?).into_owned()))
    }

    fn items(&mut self, n: usize, depth: usize) -> Result<Value, Short> {
        // Every value takes a byte at least: a count past what is left waits for more
        // bytes instead of reserving room for it.
        let mut items = Vec::with_capacity(n.min(self.buf.len().saturating_sub(self.pos)));
        for _ in 0..n {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(items))
    }

    fn pairs(&mut self, n: usize, depth: usize) -> Result<Value, Short> {
        let mut pairs = Vec::with_capacity(n.min(self.buf.len().saturating_sub(self.pos) / 2));
        for _ in 0..n {
            let k = self.value(depth + 1)?;
            let v = self.value(depth + 1)?;
            pairs.push((k, v));
        }
        Ok(Value::Map(pairs))
    }

    fn ext(&mut self, n: usize) -> Result<Value, Short> {
        let kind = self.byte()? as i8;
        Ok(Value::Ext(kind, self.take(n)?.to_vec()))
    }

    fn value(&mut self, depth: usize) -> Result<Value, Short> {
        if depth > MAX_DEPTH {
            return Err(DecodeError::TooDeep.into());
        }
        let b = self.byte()?;
        Ok(match b {
            0x00..=0x7f => Value::Int(b as i64),
            0x80..=0x8f => self.pairs((b & 0x0f) as usize, depth)?,
            0x90..=0x9f => self.items((b & 0x0f) as usize, depth)?,
            0xa0..=0xbf => self.text((b & 0x1f) as usize)?,
            0xc0 => Value::Nil,
            0xc1 => return Err(DecodeError::Reserved(b).into()),
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.len(1 << (b - 0xc4))?;
                Value::Bin(self.take(n)?.to_vec())
            }
            0xc7..=0xc9 => {
                let n = self.len(1 << (b - 0xc7))?;
                self.ext(n)?
            }
            0xca => Value::Float(f32::from_be_bytes(self.array()?) as f64),
            0xcb => Value::Float(f64::from_be_bytes(self.array()?)),
            0xcc => Value::Int(self.byte()? as i64),
            0xcd => Value::Int(u16::from_be_bytes(self.array()?) as i64),
            0xce => Value::Int(u32::from_be_bytes(self.array()?) as i64),
            0xcf => {
                let u = u64::from_be_bytes(self.array()?);
                i64::try_from(u).map_or(Value::UInt(u), Value::Int)
            }
            0xd0 => Value::Int(self.byte()? as i8 as i64),
            0xd1 => Value::Int(i16::from_be_bytes(self.array()?) as i64),
            0xd2 => Value::Int(i32::from_be_bytes(self.array()?) as i64),
            0xd3 => Value::Int(i64::from_be_bytes(self.array()?)),
            0xd4..=0xd8 => self.ext(1 << (b - 0xd4))?,
            0xd9..=0xdb => {
                let n = self.len(1 << (b - 0xd9))?;
                self.text(n)?
            }
            0xdc | 0xdd => {
                let n = self.len(if b == 0xdc { 2 } else { 4 })?;
                self.items(n, depth)?
            }
            0xde | 0xdf => {
                let n = self.len(if b == 0xde { 2 } else { 4 })?;
                self.pairs(n, depth)?
            }
            0xe0..=0xff => Value::Int(b as i8 as i64),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        encode(v, &mut out);
        out
    }

    fn roundtrip(v: Value) {
        let b = bytes(&v);
        assert_eq!(decode(&b), Ok(Some((v.clone(), b.len()))), "{v:?}");
        // A shorter prefix asks for more bytes; none is taken for a value. Every prefix of
        // a small value, a few of a large one (each check reads the whole prefix).
        let cuts: Vec<usize> = if b.len() <= 600 {
            (0..b.len()).collect()
        } else {
            vec![0, 1, 2, 3, 4, 5, 8, b.len() / 2, b.len() - 2, b.len() - 1]
        };
        for end in cuts {
            assert_eq!(decode(&b[..end]), Ok(None), "{v:?} cut at {end}");
        }
    }

    #[test]
    fn every_kind_and_width_reads_back() {
        for i in [
            0,
            1,
            127,
            128,
            255,
            256,
            65_535,
            65_536,
            4_294_967_295,
            4_294_967_296,
            i64::MAX,
            -1,
            -32,
            -33,
            -128,
            -129,
            -32_768,
            -32_769,
            -2_147_483_648,
            -2_147_483_649,
            i64::MIN,
        ] {
            roundtrip(Value::Int(i));
        }
        roundtrip(Value::UInt(u64::MAX));
        roundtrip(Value::Nil);
        roundtrip(Value::Bool(true));
        roundtrip(Value::Bool(false));
        roundtrip(Value::Float(1.5));
        roundtrip(Value::Float(-0.0));
        for n in [0, 31, 32, 255, 256, 65_535, 65_536] {
            roundtrip(Value::Str("é".repeat(n / 2) + &"x".repeat(n % 2)));
            roundtrip(Value::Bin(vec![7; n]));
        }
        for n in [0, 15, 16, 65_535, 65_536] {
            roundtrip(Value::Array(vec![Value::Nil; n]));
        }
        for n in [0, 15, 16, 70_000] {
            roundtrip(Value::Map((0..n).map(|i| (Value::Int(i as i64), Value::Bool(i % 2 == 0))).collect()));
        }
        for n in [1, 2, 4, 8, 16, 0, 3, 300, 70_000] {
            roundtrip(Value::Ext(1, vec![9; n]));
        }
        roundtrip(Value::Array(vec![
            Value::Int(0),
            Value::Int(3),
            Value::from("nvim_exec_lua"),
            Value::Array(vec![Value::from("return 1"), Value::Array(vec![])]),
        ]));
    }

    #[test]
    fn the_encoding_is_the_formats_own() {
        // [1, 3, nil, "ok"] as Neovim sends a response: a fixarray, fixints, nil, fixstr.
        assert_eq!(
            bytes(&Value::Array(vec![Value::Int(1), Value::Int(3), Value::Nil, Value::from("ok")])),
            [0x94, 0x01, 0x03, 0xc0, 0xa2, b'o', b'k']
        );
        assert_eq!(bytes(&Value::Int(-1)), [0xff]);
        assert_eq!(bytes(&Value::Int(200)), [0xcc, 200]);
        // Neovim's window handle: ext type 1 with a positive fixint inside.
        assert_eq!(decode(&[0xd4, 0x01, 0x05]), Ok(Some((Value::Ext(1, vec![5]), 3))));
        // A float32 from another encoder.
        assert_eq!(decode(&[0xca, 0x3f, 0xc0, 0x00, 0x00]), Ok(Some((Value::Float(1.5), 5))));
    }

    #[test]
    fn two_messages_in_one_buffer_are_read_one_at_a_time() {
        let mut b = bytes(&Value::Int(1));
        b.extend(bytes(&Value::from("two")));
        let (first, used) = decode(&b).unwrap().unwrap();
        assert_eq!((first, used), (Value::Int(1), 1));
        assert_eq!(decode(&b[used..]).unwrap().unwrap().0, Value::from("two"));
    }

    #[test]
    fn bad_bytes_are_refused_without_trusting_their_lengths() {
        assert_eq!(decode(&[0xc1]), Err(DecodeError::Reserved(0xc1)));
        // A 4 GiB string header: refused at once, not waited for.
        assert_eq!(decode(&[0xdb, 0xff, 0xff, 0xff, 0xff]), Err(DecodeError::TooLarge(0xffff_ffff)));
        // An array that claims 4 billion items but holds one: more bytes are needed,
        // and nothing is reserved for the claim.
        assert_eq!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0]), Ok(None));
        let deep: Vec<u8> = std::iter::repeat_n(0x91, MAX_DEPTH + 2).chain([0xc0]).collect();
        assert_eq!(decode(&deep), Err(DecodeError::TooDeep));
        let fine: Vec<u8> = std::iter::repeat_n(0x91, MAX_DEPTH).chain([0xc0]).collect();
        assert!(decode(&fine).unwrap().is_some());
        // Text that is not UTF-8 is read with the bad bytes replaced.
        assert_eq!(decode(&[0xa2, 0xff, b'a']), Ok(Some((Value::Str("\u{fffd}a".into()), 3))));
    }
}
