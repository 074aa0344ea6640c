/** What a command may touch of the process: output streams, environment, clock, interrupt. */
import { type Clock } from '../core/clock.js';
import { type Logger } from '../core/logger.js';
export interface CliIo {
    /** Results: summaries, tables, query output. */
    stdout: (text: string) => void;
    /** Logs and progress. */
    stderr: (text: string) => void;
    /** Whether stderr is a terminal (progress bar and text logs). */
    isTTY: boolean;
    clock: Clock;
    /** Aborted with an InterruptedError on Ctrl-C. */
    signal?: AbortSignal;
}
export declare function processIo(signal?: AbortSignal): CliIo;
export interface GlobalArgs {
    apiKey?: string | undefined;
    apiKeyFile?: string | undefined;
    baseUrl: string;
    project?: string[] | undefined;
    db: string;
    logFormat?: string | undefined;
    requestsPerHour?: number | undefined;
    maxRequests?: number | undefined;
    /** Seconds to wait for a database file another process holds. */
    lockTimeout: number;
    verbose: boolean;
}
export declare function loggerFor(io: CliIo, args: Pick<GlobalArgs, 'logFormat' | 'verbose'>): Logger;
