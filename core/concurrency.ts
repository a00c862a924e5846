/** The client's two concurrency rules, each in one place: share identical reads, queue writes per key. */

/** Identical calls in flight share one: the first caller's promise; later callers get their own copy of its value. */
export class SharedCalls {
  private readonly inflight = new Map<string, Promise<unknown>>();

  /** `send()` unless a call with `key` is in flight (then its answer, cloned: callers merge into what they read). */
  run(key: string, send: () => Promise<unknown>): Promise<unknown> {
    const shared = this.inflight.get(key);
    if (shared) return shared.then((value) => structuredClone(value));
    const pending = send();
    this.inflight.set(key, pending);
    const forget = () => {
      if (this.inflight.get(key) === pending) this.inflight.delete(key);
    };
    void pending.then(forget, forget);
    return pending;
  }
}

/** Calls with the same key run one after another, each after the previous one settled (either way). */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
