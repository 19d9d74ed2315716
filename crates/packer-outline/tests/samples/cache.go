// Copyright 2024 The Cache Authors.
// Licensed under the MIT licence.

// Package cache keeps values in memory for a while.
//
// It is safe for concurrent use.
package cache

import (
	"sync"
	"time"
)

// DefaultTTL is how long a value lives unless told otherwise.
const DefaultTTL = time.Minute

const (
	// MaxEntries bounds a cache.
	MaxEntries = 1 << 16
	shards     = 16
)

var ErrFull = errorString("cache: full")

// Cache maps keys to values that expire.
type Cache struct {
	mu      sync.Mutex
	entries map[string]entry
	// TTL is the lifetime of new values.
	TTL time.Duration
}

type entry struct {
	value   any
	expires time.Time
}

// Getter is anything that gets values.
type Getter interface {
	Get(key string) (any, bool)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// New makes an empty cache.
func New(ttl time.Duration) *Cache {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Cache{entries: make(map[string]entry), TTL: ttl}
}

// Get returns the value of key if it has not expired.
func (c *Cache) Get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || time.Now().After(e.expires) {
		return nil, false
	}
	return e.value, true
}

// Set stores a value.
func (c *Cache) Set(
	key string,
	value any,
) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= MaxEntries {
		return ErrFull
	}
	c.entries[key] = entry{value: value, expires: time.Now().Add(c.TTL)}
	return nil
}

func (c *Cache) sweep(now time.Time) int {
	removed := 0
	for key, e := range c.entries {
		if now.After(e.expires) {
			delete(c.entries, key)
			removed++
		}
	}
	return removed
}
