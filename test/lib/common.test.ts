/** The library's common options: what a caller may pass as a signal, a logger or a callback. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { resolveCommon } from '../../src/lib/common.js';

/** A signal as a polyfill (or another realm) makes one: not an AbortSignal, but behaving as one. */
class PolyfillSignal extends EventTarget {
  aborted = false;
  reason: unknown = undefined;
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
}

describe('resolveCommon', () => {
  const base = { apiKey: 'mint_test_key' };

  it('takes any object that behaves as an AbortSignal, and null as no signal or no callback', () => {
    const polyfill = new PolyfillSignal();
    expect(resolveCommon({ ...base, signal: polyfill as unknown as AbortSignal }).signal).toBe(polyfill);
    expect(resolveCommon({ ...base, signal: AbortSignal.timeout(60_000) }).signal).toBeInstanceOf(AbortSignal);
    expect(resolveCommon({ ...base, signal: null as unknown as AbortSignal }).signal).toBeUndefined();
    expect(() => resolveCommon({ ...base, onEvent: null } as unknown as Parameters<typeof resolveCommon>[0])).not.toThrow();
  });

  it('refuses what would fail later, naming it: a signal-looking object without its methods, a callback that is no function', () => {
    expect(() => resolveCommon({ ...base, signal: { aborted: false } as unknown as AbortSignal })).toThrow(
      new UsageError("invalid signal '[object Object]': expected an AbortSignal (e.g. AbortSignal.timeout(60_000))"),
    );
    expect(() => resolveCommon({ ...base, onWait: 5 } as unknown as Parameters<typeof resolveCommon>[0])).toThrow(/invalid onWait '5': expected a function/);
  });
});
