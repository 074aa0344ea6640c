import type { HttpClient } from '../api/http-client.js';
import type { Window } from '../core/domain.js';
import { type StopReason } from '../core/outcome.js';
import type { Executor } from '../load/database.js';
import type { Store } from '../load/store.js';
import { type Spool } from '../spool/spool.js';
export interface ThreadsOptions {
    store: Store;
    spool: Spool;
    client: HttpClient;
    runId: string;
    projects: readonly string[];
    /** The conversations whose threads are fetched: those of these windows. */
    range: Window;
    /** Fetch threads that are loaded already. @default false */
    refresh?: boolean;
    signal?: AbortSignal;
}
export interface ThreadsSummary {
    threadsPlanned: number;
    threadsLoaded: number;
    threadsFromSpool: number;
    threadsFailed: number;
    threadsLeft: number;
    stopped: StopReason | null;
    stopMessage: string | null;
}
interface SpooledThread {
    projectId: string;
    threadId: string;
    file: string;
}
/** Pure: the threads to fetch, in the order given, minus those loaded (unless refreshed) or spooled. */
export declare function planThreads(referenced: readonly string[], loaded: ReadonlySet<string>, spooled: ReadonlySet<string>, refresh: boolean): string[];
/** Loads spooled thread bodies in the caller's transaction: each thread's messages replace its earlier copy. */
export declare function loadThreads(tx: Executor, threads: readonly SpooledThread[], runId: string): Promise<void>;
export declare function runThreads(options: ThreadsOptions): Promise<ThreadsSummary>;
export {};
