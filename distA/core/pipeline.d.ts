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
export declare class BoundedPipeline<T> {
    private readonly options;
    private readonly queue;
    private running;
    private failure;
    private waiters;
    private closing;
    private lingering;
    constructor(options: PipelineOptions<T>);
    /** Whether the consumer failed (the error may already have surfaced). */
    get failed(): boolean;
    /** Items not yet handed to the consumer. */
    get waiting(): number;
    /** Queues an item; waits while the queue is full. Throws the consumer's first error once. */
    push(item: T): Promise<void>;
    /** Waits until everything queued is consumed (or the consumer failed); throws its error if not yet surfaced. */
    close(): Promise<void>;
    private start;
    private weightOf;
    /** Whether the waiting items make a full batch. */
    private full;
    /** The next batch: waiting items in order, up to `maxBatch` and `fullWeight` (at least one). */
    private take;
    /** Waits up to `lingerMs` for the batch to fill, unless closing. */
    private linger;
    private drain;
    private wake;
    private surface;
}
