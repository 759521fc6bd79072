//! The framing every chsr file shares (shards and models): magic bytes, a format version, the
//! payload length and the payload's SHA-256, then the payload. One writer and one reader serve
//! both file kinds; each kind maps [`FrameError`] into its own error enum, so its messages can
//! say what to do for that kind of file.

use bincode::{Decode, Encode};
use sha2::{Digest, Sha256};

/// Size of the fixed header: magic (8) + version (4) + payload length (8) + SHA-256 (32).
pub const FRAME_HEADER_LEN: usize = 8 + 4 + 8 + 32;

/// What kind of file a frame holds: its magic, the version this build writes and reads, and the
/// largest payload a reader agrees to decode (a guard against hostile length fields).
#[derive(Clone, Copy, Debug)]
pub struct FrameKind {
    /// Magic bytes opening the file.
    pub magic: &'static [u8; 8],
    /// Format version written and read.
    pub version: u32,
    /// Upper bound on the payload length.
    pub max_payload: u64,
}

/// How a file kind's error enum says what can go wrong with a frame: each file kind keeps its
/// own error type (and its own advice in the messages), and the frame reader builds them.
pub trait FrameErrors: Sized {
    /// The file does not start with the kind's magic bytes.
    fn magic() -> Self;
    /// The file was written by format version `found`; this reader reads `expected`.
    fn version(found: u32, expected: u32) -> Self;
    /// The file holds `found` bytes of the `expected` (header + payload).
    fn truncated(expected: u64, found: u64) -> Self;
    /// The payload's SHA-256 differs from the header's.
    fn checksum_mismatch() -> Self;
    /// The header is inconsistent (implausible length, trailing bytes) or the payload does not
    /// decode.
    fn decode(message: String) -> Self;
}

/// Implements [`FrameErrors`] for an error enum with the variants `Magic`, `Version { found,
/// expected }`, `Truncated { expected, found }`, `ChecksumMismatch` and `Decode(String)`.
macro_rules! frame_errors {
    ($error:ident) => {
        impl $crate::format::frame::FrameErrors for $error {
            fn magic() -> Self {
                $error::Magic
            }
            fn version(found: u32, expected: u32) -> Self {
                $error::Version { found, expected }
            }
            fn truncated(expected: u64, found: u64) -> Self {
                $error::Truncated { expected, found }
            }
            fn checksum_mismatch() -> Self {
                $error::ChecksumMismatch
            }
            fn decode(message: String) -> Self {
                $error::Decode(message)
            }
        }
    };
}
pub(crate) use frame_errors;

/// How long the frame at the start of `bytes` says it is (header and payload), when `bytes`
/// hold its header: what follows it is not the frame's (a part's audit path, [`super::merkle`]).
pub fn framed_len(bytes: &[u8]) -> Option<usize> {
    let len = u64::from_le_bytes(bytes.get(12..20)?.try_into().expect("8 bytes"));
    usize::try_from(len).ok()?.checked_add(FRAME_HEADER_LEN)
}

impl FrameKind {
    /// Serialises `payload` with bincode 2 (standard configuration) and frames it.
    ///
    /// The payload types derive bincode's own `Encode`/`Decode` rather than going through serde:
    /// the bytes are the same (bincode 2 writes a struct as its fields in order, an enum as its
    /// variant index, a `Vec<u8>` as its length and its bytes, either way), and the reader the
    /// browser loads is smaller and faster without serde's visitors in between.
    pub fn encode<T: Encode>(&self, payload: &T) -> Vec<u8> {
        let body = bincode::encode_to_vec(payload, bincode::config::standard())
            .expect("in-memory bincode encoding cannot fail");
        let mut out = Vec::with_capacity(FRAME_HEADER_LEN + body.len());
        out.extend_from_slice(self.magic);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&Sha256::digest(&body));
        out.extend_from_slice(&body);
        out
    }

    /// Checks the frame (magic, version, length, and the checksum when `checksum` is set; a
    /// caller that has just matched the whole file against a trusted digest skips it) and
    /// decodes the payload, which must use every byte.
    pub fn decode<T: Decode<()>, E: FrameErrors>(
        &self,
        bytes: &[u8],
        checksum: bool,
    ) -> Result<T, E> {
        if bytes.len() < 8 || &bytes[..8] != self.magic {
            return Err(E::magic());
        }
        if bytes.len() < FRAME_HEADER_LEN {
            return Err(E::truncated(FRAME_HEADER_LEN as u64, bytes.len() as u64));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != self.version {
            return Err(E::version(version, self.version));
        }
        let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
        if len > self.max_payload {
            return Err(E::decode(format!("payload length {len} is implausible")));
        }
        let expected = FRAME_HEADER_LEN as u64 + len;
        let found = bytes.len() as u64;
        if found < expected {
            return Err(E::truncated(expected, found));
        }
        if found > expected {
            return Err(E::decode(format!(
                "{} trailing bytes after the payload",
                found - expected
            )));
        }
        let body = &bytes[FRAME_HEADER_LEN..];
        if checksum && Sha256::digest(body).as_slice() != &bytes[20..52] {
            return Err(E::checksum_mismatch());
        }
        // The length was bounded above, so this limit only stops allocations the bytes cannot back.
        let config = bincode::config::standard().with_limit::<{ 1 << 31 }>();
        let (payload, used): (T, usize) =
            bincode::decode_from_slice(body, config).map_err(|e| E::decode(describe(&e)))?;
        if used != body.len() {
            return Err(E::decode("payload has unread bytes".into()));
        }
        Ok(payload)
    }
}
/// A payload's decoding error in words. bincode's own `Display` prints its derived `Debug`,
/// which would bring every variant's printer (durations, I/O errors, …) into the browser's
/// module for messages no reader of a chsr file produces.
fn describe(e: &bincode::error::DecodeError) -> String {
    use bincode::error::DecodeError as D;
    match e {
        D::UnexpectedEnd { additional } => {
            format!("the payload ends early ({additional} more bytes needed)")
        }
        D::LimitExceeded => "a length exceeds the payload's limit".into(),
        D::UnexpectedVariant {
            type_name, found, ..
        } => format!("{type_name}: no variant {found}"),
        D::Utf8 { .. } => "a string is not UTF-8".into(),
        D::InvalidBooleanValue(b) => format!("{b} is not a boolean"),
        D::OutsideUsizeRange(n) => format!("length {n} out of range"),
        D::ArrayLengthMismatch { required, found } => {
            format!("{found} items where {required} are required")
        }
        D::Other(m) => (*m).to_string(),
        D::OtherString(m) => m.clone(),
        _ => "malformed bincode data".into(),
    }
}
