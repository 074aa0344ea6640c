import type { Logger } from '../../core/logger.js';
import type { WindowEvent } from '../../extract/run-export.js';
export interface Progress {
    start(total: number): void;
    window(event: WindowEvent): void;
    /** The run sleeps for the hourly budget: a log line, and the bar says so. */
    waiting(wait: {
        wait_ms: number;
    } & Record<string, unknown>): void;
    done(): void;
}
/**
 * Pure: how long the windows left will take at the hourly budget, from the requests the
 * windows done so far took on average; undefined before the first window.
 */
export declare function estimateRemainingMs(done: number, total: number, requestsSoFar: number, perHour: number): number | undefined;
/**
 * @param isTTY whether stderr is a terminal: the bar is drawn only there. Text logs off a
 *   terminal report only warnings and failures; JSON logs report every window.
 */
export declare function createProgress(logger: Logger, write: (text: string) => void, isTTY: boolean, budget?: {
    perHour: number;
    now: () => number;
}): Progress;
