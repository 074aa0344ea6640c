/**
 * A small bounded pipeline between a producer and one asynchronous consumer: the producer
 * pushes items, the consumer takes them in batches (up to `maxBatch`, all that are waiting),
 * and a producer more than `capacity` items ahead waits. A batch is full at `maxBatch` items
 * or at `fullWeight` (e.g. rows), and takes no more than that weight (one heavier item goes
 * alone); one that is not full may wait up to `lingerMs` for more items (fewer, larger
 * batches), but never past `close`. The consumer's first error stops it
 * and surfaces exactly once: from the next `push`, or else from `close`.
 */
export interface PipelineOptions<T> {
  /** Items that may wait for the consumer before `push` waits too. */
  capacity: number;
  /** Most items handed to one `consume` call. */
  maxBatch: number;
  /** The weight of an item (e.g. its rows). @default 1 */
  weight?: (item: T) => number;
  /** Waiting items of at least this weight make a full batch; a batch weighs no more. @default Infinity */
  fullWeight?: number;
  /** How long a batch that is not full waits for more items, in ms (real time). @default 0 */
  lingerMs?: number;
  consume: (batch: T[]) => Promise<void>;
}

export class BoundedPipeline<T> {
  private readonly queue: T[] = [];
  private running: Promise<void> | undefined;
  private failure: { error: unknown; surfaced: boolean } | undefined;
  private waiters: (() => void)[] = [];
  private closing = false;
  private lingering: (() => void) | undefined;

  constructor(private readonly options: PipelineOptions<T>) {}

  /** Whether the consumer failed (the error may already have surfaced). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Items not yet handed to the consumer. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Queues an item; waits while the queue is full. Throws the consumer's first error once. */
  async push(item: T): Promise<void> {
    this.surface();
    this.queue.push(item);
    if (this.full()) this.lingering?.();
    this.start();
    while (this.queue.length >= this.options.capacity && this.failure === undefined) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.surface();
  }

  /** Waits until everything queued is consumed (or the consumer failed); throws its error if not yet surfaced. */
  async close(): Promise<void> {
    this.closing = true;
    this.lingering?.();
    while (this.running) await this.running;
    this.surface();
  }

  /**
   * Takes no more: the items not yet handed to the consumer are dropped (and returned), and
   * the batch being consumed, if any, is waited for. Throws the consumer's error if not yet surfaced.
   */
  async abandon(): Promise<T[]> {
    this.closing = true;
    const dropped = this.queue.splice(0);
    this.lingering?.();
    this.wake();
    while (this.running) await this.running;
    this.surface();
    return dropped;
  }

  private start(): void {
    if (this.running || this.failure) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.queue.length > 0) this.start();
    });
  }

  private weightOf(item: T): number {
    return this.options.weight ? this.options.weight(item) : 1;
  }

  /** Whether the waiting items make a full batch. */
  private full(): boolean {
    if (this.queue.length >= this.options.maxBatch) return true;
    const { fullWeight } = this.options;
    if (fullWeight === undefined) return false;
    let total = 0;
    for (const item of this.queue) total += this.weightOf(item);
    return total >= fullWeight;
  }

  /** The next batch: waiting items in order, up to `maxBatch` and `fullWeight` (at least one). */
  private take(): T[] {
    const limit = this.options.fullWeight ?? Number.POSITIVE_INFINITY;
    let count = 0;
    let total = 0;
    while (count < this.queue.length && count < this.options.maxBatch) {
      const next = this.weightOf(this.queue[count] as T);
      if (count > 0 && total + next > limit) break;
      total += next;
      count++;
    }
    return this.queue.splice(0, count);
  }

  /** Waits up to `lingerMs` for the batch to fill, unless closing. */
  private async linger(): Promise<void> {
    const ms = this.options.lingerMs ?? 0;
    if (ms <= 0 || this.closing || this.full()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.lingering = done;
    });
    this.lingering = undefined;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && this.failure === undefined) {
      await this.linger();
      if (this.queue.length === 0) break; // abandoned while lingering
      const batch = this.take();
      this.wake();
      try {
        await this.options.consume(batch);
      } catch (error) {
        this.failure = { error, surfaced: false };
        this.wake();
      }
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private surface(): void {
    if (this.failure && !this.failure.surfaced) {
      this.failure.surfaced = true;
      throw this.failure.error;
    }
  }
}
