/**
 * A typed key-value store with change listeners.
 */

import { EventEmitter } from "node:events";
import type { Clock } from "./clock";

export const DEFAULT_TTL = 60_000;

/** What a listener receives. */
export interface Change<V> {
  key: string;
  /** The value before the change, if any. */
  previous?: V;
  next: V | undefined;
}

export type Listener<V> = (change: Change<V>) => void;

export enum Mode {
  ReadOnly,
  ReadWrite,
}

/**
 * A store of values of one type.
 *
 * Values expire after their TTL.
 */
export class Store<V> extends EventEmitter {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  protected mode: Mode = Mode.ReadWrite;
  static instances = 0;

  constructor(private clock: Clock, readonly ttl: number = DEFAULT_TTL) {
    super();
    Store.instances += 1;
  }

  /** The value of `key`, unless it expired. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.expires < this.clock.now()) {
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    if (this.mode === Mode.ReadOnly) {
      throw new Error("read-only store");
    }
    const previous = this.get(key);
    this.entries.set(key, { value, expires: this.clock.now() + this.ttl });
    this.emit("change", { key, previous, next: value });
  }

  private sweep(): number {
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expires < this.clock.now()) {
        this.entries.delete(key);
        removed += 1;
      }
    }
    return removed;
  }
}

export function createStore<V>(
  clock: Clock,
  ttl?: number,
): Store<V> {
  return new Store<V>(clock, ttl);
}

function helper(): void {
  console.log("internal");
}

export namespace Keys {
  export const separator = ":";
  export function join(...parts: string[]): string {
    return parts.join(separator);
  }
  const secret = 1;
}
