//! The hash of a token's bytes in the built-in vocabularies' tables.

/// A 64-bit hash of `bytes`: eight bytes at a time, each word mixed in with
/// a rotate, an xor and a multiplication (FxHash's step); the length is the
/// seed, so that the zero padding of the last word cannot collide.
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut hash = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        hash = (hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        hash = (hash.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    }
    hash
}
