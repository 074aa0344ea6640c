import { type SandboxJob } from './agent-jobs.js';
import { type EngagementShape } from './engagement.js';
import { type FaultSpec } from './faults.js';
import { type RateLimitOptions } from './rate-limits.js';
export { parseFaultSpec } from './faults.js';
export type { DropPhase, FaultKind, FaultSpec } from './faults.js';
export type { SandboxJob } from './agent-jobs.js';
export declare const SANDBOX_API_KEY = "mint_sandbox_local_key";
export interface SandboxOptions {
    /** Interface to listen on. @default '127.0.0.1' */
    host?: string;
    /** Port; 0 picks a free one. @default 0 */
    port?: number;
    /** The only key accepted as `Authorization: Bearer <key>`. @default SANDBOX_API_KEY */
    apiKey?: string;
    /** Seed of the simulated data; with the project id it decides every count. @default 42 */
    seed?: number;
    /** Milliseconds since the epoch; drives "today" (partial and late data) and timestamps. @default Date.now */
    now?: () => number;
    site?: {
        /** Pages per project. @default 300 */
        paths?: number;
        /** Floor of a page's daily visitors; 0 lets the long tail have empty days. @default 0 */
        minDailyVisitors?: number;
    };
    /** Feedback, searches and assistant traffic a day (see ./engagement.ts). @default DEFAULT_ENGAGEMENT */
    engagement?: Partial<EngagementShape>;
    jobs?: {
        /** GETs of a job before it shows its outcome. @default 2 */
        pollsToFinish?: number;
    };
    /** Faults active from the start, in order. @default [] */
    faults?: FaultSpec[];
    /**
     * Enforce the API's documented rate limits (100 analytics requests an hour, 100 job
     * creations and messages an hour per project), answering 429 with Retry-After beyond them.
     * `docpipe sandbox` turns them on unless `--no-rate-limit`; tests, the demo and the
     * benchmark leave them off. @default false
     */
    rateLimits?: boolean | RateLimitOptions;
    /**
     * Keep every request in `requests` (tests and the demo read them). `docpipe sandbox` does
     * not: a server that runs for hours grew by about 1.7 KB a request (measured: 294 MB after
     * 13,000 requests, 358 MB after 52,000). @default true
     */
    recordRequests?: boolean;
}
export interface RequestRecord {
    method: string;
    /** The URL path without the query string. */
    path: string;
    query: Record<string, string>;
    /** 0 when the socket was dropped (or the sandbox closed first). */
    status: number;
    /** `now()` when the request arrived. */
    at: number;
}
export interface Sandbox {
    /** e.g. http://127.0.0.1:54321 */
    readonly url: string;
    readonly port: number;
    readonly apiKey: string;
    /** Every request received, in arrival order (none when `recordRequests` is false). */
    readonly requests: RequestRecord[];
    addFault(fault: FaultSpec): void;
    clearFaults(): void;
    /** Every job created, in creation order. */
    jobs(): SandboxJob[];
    /** Stops listening and closes every socket, keep-alive ones included. */
    close(): Promise<void>;
}
export declare function startSandbox(options?: SandboxOptions): Promise<Sandbox>;
