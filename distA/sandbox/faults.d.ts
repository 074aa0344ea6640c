export declare const FAULT_KINDS: readonly ["rate-limit", "server-error", "drop", "slow", "malformed", "drift", "ignore-offset", "body", "patch"];
export type FaultKind = (typeof FAULT_KINDS)[number];
export declare const DROP_PHASES: readonly ["before-handling", "after-handling"];
export type DropPhase = (typeof DROP_PHASES)[number];
export interface FaultSpec {
    kind: FaultKind;
    /** Which requests it applies to; every request when absent. */
    match?: {
        method?: 'GET' | 'POST';
        /** A substring of the URL path, e.g. '/visitors' or '/job'. */
        path?: string;
    };
    /** How many matching requests it affects (Infinity allowed). @default 1 */
    times?: number;
    /** Matching requests let through unaffected first. @default 0 */
    skip?: number;
    /** Response status. @default 429 for rate-limit, 500 for server-error */
    status?: number;
    /** Raw Retry-After header value ("2" or an HTTP date); no header when absent. */
    retryAfter?: string;
    /** Error body as text/plain instead of JSON. @default false */
    plainText?: boolean;
    /** 'slow': delay before answering normally. @default 1000 */
    delayMs?: number;
    /**
     * 'drop': when to destroy the socket. 'after-handling' performs the request's side
     * effect first (the job IS created), like a reset after the POST reached the server.
     * @default 'before-handling'
     */
    dropPhase?: DropPhase;
    /** 'body': the response body sent instead of the real one (status `status`, default 200), after handling the request. */
    body?: string;
    /**
     * 'patch': fields merged into a successful JSON object body after handling the request
     * (`{"status": "cancelled"}`, `{"prLink": null}`), for answers the documentation allows but
     * the simulation does not give by itself.
     */
    patch?: Record<string, unknown>;
}
export declare const DEFAULT_SLOW_MS = 1000;
/** What the server knows about a request when it picks a fault. */
export interface FaultContext {
    method: string;
    path: string;
    /** Drift only changes analytics pages past the first. */
    driftable: boolean;
}
export declare class FaultQueue {
    private faults;
    add(spec: FaultSpec): void;
    clear(): void;
    /** The fault this request meets, counted as fired; undefined when none. */
    take(context: FaultContext): FaultSpec | undefined;
    /** Gives back a fault taken for a request it turned out not to affect. */
    refund(spec: FaultSpec): void;
}
/**
 * Reads a fault from a CLI flag: the kind, then `key=value` fields separated by ':', e.g.
 * `rate-limit:times=3:retryAfter=2:path=/visitors` or `drop:method=POST:dropPhase=after-handling`.
 * `plainText` may stand alone; `times` accepts `Infinity` (or `inf`).
 */
export declare function parseFaultSpec(text: string): FaultSpec;
