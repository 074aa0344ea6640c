/** A small least-recently-used map: a Map keeps insertion order, so the first key is the oldest. */
export declare class LruCache<K, V> {
    private readonly capacity;
    private readonly entries;
    constructor(capacity: number);
    get(key: K): V | undefined;
    set(key: K, value: V): void;
    get size(): number;
}
