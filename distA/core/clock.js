export const systemClock = {
    now: () => Date.now(),
    sleep: (ms, signal) => new Promise((resolve, reject) => {
        if (signal?.aborted) {
            reject(signal.reason);
            return;
        }
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal?.reason);
        };
        const timer = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
        }, Math.max(0, ms));
        signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
/**
 * A clock whose time only moves when something sleeps on it or a test advances it.
 * Sleeps resolve at once (after yielding), having moved time forward; `sleeps` records them.
 */
export class ManualClock {
    sleeps = [];
    current;
    constructor(start = Date.UTC(2026, 0, 1)) {
        this.current = typeof start === 'string' ? Date.parse(start) : start;
    }
    now() {
        return this.current;
    }
    advance(ms) {
        this.current += ms;
    }
    async sleep(ms, signal) {
        signal?.throwIfAborted();
        this.sleeps.push(ms);
        this.current += Math.max(0, ms);
        await Promise.resolve();
        signal?.throwIfAborted();
    }
}
//# sourceMappingURL=clock.js.map