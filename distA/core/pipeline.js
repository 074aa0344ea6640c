export class BoundedPipeline {
    options;
    queue = [];
    running;
    failure;
    waiters = [];
    closing = false;
    lingering;
    constructor(options) {
        this.options = options;
    }
    /** Whether the consumer failed (the error may already have surfaced). */
    get failed() {
        return this.failure !== undefined;
    }
    /** Items not yet handed to the consumer. */
    get waiting() {
        return this.queue.length;
    }
    /** Queues an item; waits while the queue is full. Throws the consumer's first error once. */
    async push(item) {
        this.surface();
        this.queue.push(item);
        if (this.full())
            this.lingering?.();
        this.start();
        while (this.queue.length >= this.options.capacity && this.failure === undefined) {
            await new Promise((resolve) => this.waiters.push(resolve));
        }
        this.surface();
    }
    /** Waits until everything queued is consumed (or the consumer failed); throws its error if not yet surfaced. */
    async close() {
        this.closing = true;
        this.lingering?.();
        while (this.running)
            await this.running;
        this.surface();
    }
    start() {
        if (this.running || this.failure)
            return;
        this.running = this.drain().finally(() => {
            this.running = undefined;
            if (this.queue.length > 0)
                this.start();
        });
    }
    weightOf(item) {
        return this.options.weight ? this.options.weight(item) : 1;
    }
    /** Whether the waiting items make a full batch. */
    full() {
        if (this.queue.length >= this.options.maxBatch)
            return true;
        const { fullWeight } = this.options;
        if (fullWeight === undefined)
            return false;
        let total = 0;
        for (const item of this.queue)
            total += this.weightOf(item);
        return total >= fullWeight;
    }
    /** The next batch: waiting items in order, up to `maxBatch` and `fullWeight` (at least one). */
    take() {
        const limit = this.options.fullWeight ?? Number.POSITIVE_INFINITY;
        let count = 0;
        let total = 0;
        while (count < this.queue.length && count < this.options.maxBatch) {
            const next = this.weightOf(this.queue[count]);
            if (count > 0 && total + next > limit)
                break;
            total += next;
            count++;
        }
        return this.queue.splice(0, count);
    }
    /** Waits up to `lingerMs` for the batch to fill, unless closing. */
    async linger() {
        const ms = this.options.lingerMs ?? 0;
        if (ms <= 0 || this.closing || this.full())
            return;
        await new Promise((resolve) => {
            const timer = setTimeout(done, ms);
            function done() {
                clearTimeout(timer);
                resolve();
            }
            this.lingering = done;
        });
        this.lingering = undefined;
    }
    async drain() {
        while (this.queue.length > 0 && this.failure === undefined) {
            await this.linger();
            const batch = this.take();
            this.wake();
            try {
                await this.options.consume(batch);
            }
            catch (error) {
                this.failure = { error, surfaced: false };
                this.wake();
            }
        }
    }
    wake() {
        const waiters = this.waiters;
        this.waiters = [];
        for (const resolve of waiters)
            resolve();
    }
    surface() {
        if (this.failure && !this.failure.surfaced) {
            this.failure.surfaced = true;
            throw this.failure.error;
        }
    }
}
//# sourceMappingURL=pipeline.js.map