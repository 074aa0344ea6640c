/** A small least-recently-used map: a Map keeps insertion order, so the first key is the oldest. */
export class LruCache {
    capacity;
    entries = new Map();
    constructor(capacity) {
        this.capacity = capacity;
    }
    get(key) {
        const value = this.entries.get(key);
        if (value !== undefined) {
            this.entries.delete(key);
            this.entries.set(key, value);
        }
        return value;
    }
    set(key, value) {
        this.entries.delete(key);
        this.entries.set(key, value);
        while (this.entries.size > this.capacity) {
            const oldest = this.entries.keys().next();
            if (oldest.done)
                break;
            this.entries.delete(oldest.value);
        }
    }
    get size() {
        return this.entries.size;
    }
}
//# sourceMappingURL=lru-cache.js.map