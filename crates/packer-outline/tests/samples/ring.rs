//! A fixed-capacity ring buffer.
//!
//! Pushing onto a full ring overwrites the oldest element; see
//! [`Ring::push`].

use std::fmt;
use std::ops::Index;

/// The largest capacity a ring accepts.
pub const MAX_CAPACITY: usize = 1 << 20;

static NAME: &str = "ring";

/// A ring buffer of at most `capacity` elements.
///
/// Elements are stored in insertion order.
#[derive(Clone, Debug)]
pub struct Ring<T> {
    items: Vec<Option<T>>,
    /// Where the next element goes.
    head: usize,
    len: usize,
}

/// Why a ring could not be made.
#[derive(Debug, PartialEq, Eq)]
pub enum RingError {
    /// The capacity was zero.
    Empty,
    /// The capacity was larger than [`MAX_CAPACITY`].
    TooLarge(usize),
}

impl<T> Ring<T> {
    /// A ring of `capacity` elements.
    pub fn new(capacity: usize) -> Result<Self, RingError> {
        if capacity == 0 {
            return Err(RingError::Empty);
        }
        if capacity > MAX_CAPACITY {
            return Err(RingError::TooLarge(capacity));
        }
        let mut items = Vec::with_capacity(capacity);
        items.resize_with(capacity, || None);
        Ok(Ring { items, head: 0, len: 0 })
    }

    /// Pushes an element, returning the one it overwrote.
    ///
    /// The ring never grows.
    pub fn push(&mut self, item: T) -> Option<T> {
        let old = self.items[self.head].replace(item);
        self.head = (self.head + 1) % self.items.len();
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    fn slot(&self, index: usize) -> usize {
        let start = (self.head + self.items.len() - self.len) % self.items.len();
        (start + index) % self.items.len()
    }
}

impl<T> Index<usize> for Ring<T> {
    type Output = T;

    fn index(&self, index: usize) -> &T {
        assert!(index < self.len, "index {index} out of range");
        self.items[self.slot(index)].as_ref().expect("a filled slot")
    }
}

impl fmt::Display for RingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingError::Empty => write!(f, "a ring needs a capacity"),
            RingError::TooLarge(n) => write!(f, "capacity {n} is too large"),
        }
    }
}

/// Something that can be drained.
pub trait Drain {
    /// The drained element.
    type Item;

    /// Takes every element out.
    fn drain(&mut self) -> Vec<Self::Item>;
}

macro_rules! ring {
    ($($item:expr),*) => {{
        let mut ring = Ring::new(16).unwrap();
        $(ring.push($item);)*
        ring
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overwrites_the_oldest() {
        let mut ring = Ring::new(2).unwrap();
        ring.push(1);
        ring.push(2);
        assert_eq!(ring.push(3), Some(1));
    }
}
