/**
 * What every library entry point shares: where the API and the database are, the clock, the
 * logger and the interrupt signal. Public options are all optional but the key, each with a
 * documented default, and normalised once here.
 */
import { type HttpClientOptions } from '../api/http-client.js';
import { type Clock } from '../core/clock.js';
import { type Logger } from '../core/logger.js';
export interface CommonOptions {
    /** The admin API key (`mint_…`). Never logged, printed or stored. */
    apiKey: string;
    /** @default 'https://api.mintlify.com' (plain http:// is refused except to loopback) */
    baseUrl?: string;
    /** The DuckDB file. @default 'data/docpipe.duckdb' */
    db?: string;
    /** How long to wait for a database file another process holds, in ms. @default 300_000 */
    lockTimeoutMs?: number;
    /** Cap on requests in this run. @default no cap */
    maxRequests?: number;
    /** Receives structured log lines (retries, waits, warnings). @default a logger that drops them */
    logger?: Logger;
    /** @default the system clock */
    clock?: Clock;
    /** Aborting it stops the run cleanly, with everything finished so far saved (exit code 130). */
    signal?: AbortSignal;
    /** HTTP client settings (timeouts, backoff) for tests and benchmarks. @default the client's own */
    http?: Partial<Omit<HttpClientOptions, 'apiKey' | 'baseUrl' | 'clock' | 'beforeAttempt' | 'afterAttempt' | 'onRetry'>>;
}
export interface ResolvedCommon {
    apiKey: string;
    baseUrl: string;
    /** In the shape the workspace takes (`lockTimeout` in seconds, like the CLI option). */
    workspace: {
        db: string;
        lockTimeout: number;
    };
    maxRequests: number | undefined;
    logger: Logger;
    clock: Clock;
    signal: AbortSignal | undefined;
    http: CommonOptions['http'];
}
/** A logger that drops everything: a library prints nothing unless asked. */
export declare const silentLogger: Logger;
export declare function resolveCommon(options: CommonOptions, needsKey?: boolean): ResolvedCommon;
/** A positive number option, named as the caller knows it (`--concurrency`, `concurrency`). */
export declare function positive(name: string, value: number, integer: boolean): number;
