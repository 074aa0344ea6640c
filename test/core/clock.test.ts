/** The system clock's sleep: a wait longer than a Node timer takes (about 24.8 days) is slept whole. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';

describe('systemClock.sleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sleeps a wait past 2^31 - 1 ms whole (a timer that long fires at once), and a stop still ends it', async () => {
    vi.useFakeTimers();
    const ms = 3_000_000_000; // a Retry-After of about 35 days
    let done = false;
    const sleeping = systemClock.sleep(ms).then(() => void (done = true));
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(2 ** 31);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(ms - 2 ** 31 - 1);
    await sleeping;
    expect(done).toBe(true);

    const stop = new AbortController();
    const stopped = systemClock.sleep(ms, stop.signal);
    await vi.advanceTimersByTimeAsync(2 ** 31);
    stop.abort(new Error('stopped'));
    await expect(stopped).rejects.toThrow('stopped');
  });
});
