/**
 * A value now, or a promise of it. The API's lookups answer from memory nearly always: answering
 * those synchronously, in the socket's read callback as the contract floor does, spares each
 * request its promise hops (an await costs a microtask turn even on a plain value). Only a lookup
 * that must ask the store returns a promise.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next(value)`: at once when `value` is here, else when it comes (a throw in `next` rejects it
 * then). Not named `then`: a module exporting `then` is a thenable, and `await import()` of it
 * would call it.
 */
export function after<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
