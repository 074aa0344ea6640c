/** The bounded pipeline between the walks and the loader: batches by count and by weight, lingering, one error. */
import { describe, expect, it } from 'vitest';
import { BoundedPipeline } from '../../src/core/pipeline.js';

/** A consumer that records its batches and lets each one finish when told to. */
function recorder() {
  const batches: number[][] = [];
  let release: (() => void) | undefined;
  return {
    batches,
    consume: (items: number[]): Promise<void> => {
      batches.push(items);
      return new Promise<void>((resolve) => (release = resolve));
    },
    finish: (): void => release?.(),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

describe('BoundedPipeline', () => {
  it('takes at most fullWeight a batch, and a heavier item alone', async () => {
    const r = recorder();
    const pipeline = new BoundedPipeline<number>({ capacity: 100, maxBatch: 10, weight: (n) => n, fullWeight: 10, consume: r.consume });
    await pipeline.push(1); // taken at once (no linger): the consumer is now busy
    for (const n of [4, 4, 4, 12, 3]) await pipeline.push(n);
    const closed = pipeline.close();
    for (let i = 0; i < 5; i++) {
      await tick();
      r.finish();
    }
    await closed;
    expect(r.batches).toEqual([[1], [4, 4], [4], [12], [3]]);
  });

  it('a batch lingers for more until it weighs enough, then goes at once', async () => {
    const r = recorder();
    const pipeline = new BoundedPipeline<number>({ capacity: 100, maxBatch: 10, weight: (n) => n, fullWeight: 10, lingerMs: 60_000, consume: r.consume });
    await pipeline.push(3);
    await tick();
    expect(r.batches).toEqual([]); // lingering: 3 of 10
    await pipeline.push(7);
    await tick();
    expect(r.batches).toEqual([[3, 7]]);
    r.finish();
    await pipeline.close();
  });

  it('the consumer error surfaces once, from the next push', async () => {
    const pipeline = new BoundedPipeline<number>({ capacity: 100, maxBatch: 10, consume: () => Promise.reject(new Error('disk full')) });
    await pipeline.push(1);
    await tick();
    await expect(pipeline.push(2)).rejects.toThrow('disk full');
    await expect(pipeline.close()).resolves.toBeUndefined();
  });

  it('abandon drops what waits, waits for the batch under way, and consumes nothing after it', async () => {
    const r = recorder();
    const pipeline = new BoundedPipeline<number>({ capacity: 100, maxBatch: 2, consume: r.consume });
    await pipeline.push(1); // taken at once: the consumer is busy with [1]
    for (const n of [2, 3, 4]) await pipeline.push(n);
    let abandoned: number[] | undefined;
    const done = pipeline.abandon().then((dropped) => (abandoned = dropped));
    await tick();
    expect(abandoned).toBeUndefined(); // [1] is still being consumed
    r.finish();
    await done;
    expect(abandoned).toEqual([2, 3, 4]);
    await tick();
    expect(r.batches).toEqual([[1]]);
  });

  it('abandon while a batch lingers consumes nothing', async () => {
    const r = recorder();
    const pipeline = new BoundedPipeline<number>({ capacity: 100, maxBatch: 10, lingerMs: 60_000, consume: r.consume });
    await pipeline.push(1);
    await tick();
    expect(await pipeline.abandon()).toEqual([1]);
    await tick();
    expect(r.batches).toEqual([]);
  });
});
