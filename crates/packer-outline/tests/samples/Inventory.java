/*
 * Copyright 2024 The Inventory Authors.
 * Licensed under the Apache License, Version 2.0.
 */
package com.example.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Counts items by name.
 *
 * <p>Not thread-safe.
 */
public class Inventory implements Iterable<String> {
  /** The most items of one name. */
  public static final int MAX = 1_000;

  private final List<Entry> entries = new ArrayList<>();
  int version;

  /** What kind of change happened. */
  public enum Change {
    ADDED,
    REMOVED {
      @Override
      public String toString() {
        return "removed";
      }
    };
  }

  /** Listens to changes. */
  public interface Listener {
    void changed(String name, Change change);

    default void cleared() {}
  }

  /**
   * Makes an empty inventory.
   */
  public Inventory() {
    this.version = 0;
  }

  /**
   * Adds {@code count} items named {@code name}.
   *
   * @throws IllegalArgumentException if the count is negative
   */
  @SuppressWarnings("unused")
  public int add(
      String name,
      int count) {
    if (count < 0) {
      throw new IllegalArgumentException("negative count");
    }
    Entry entry = find(name);
    entry.count = Math.min(MAX, entry.count + count);
    version++;
    return entry.count;
  }

  private Entry find(String name) {
    for (Entry entry : entries) {
      if (Objects.equals(entry.name, name)) {
        return entry;
      }
    }
    Entry entry = new Entry(name);
    entries.add(entry);
    return entry;
  }

  @Override
  public java.util.Iterator<String> iterator() {
    return entries.stream().map(e -> e.name).iterator();
  }

  private static final class Entry {
    final String name;
    int count;

    Entry(String name) {
      this.name = name;
    }
  }

  public record Snapshot(String name, int count) {
    public Snapshot {
      Objects.requireNonNull(name);
    }
  }
}
