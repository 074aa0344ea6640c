import type { HttpClient } from '../api/http-client.js';
import type { Clock } from '../core/clock.js';
import { type ExitCode } from '../core/errors.js';
import { type StopReason } from '../core/outcome.js';
import { type JobLedger, type LedgerRow } from './ledger.js';
import type { PromptEntry } from './prompt-files.js';
export interface BatchOptions {
    client: HttpClient;
    ledger: JobLedger;
    clock: Clock;
    projectId: string;
    sourceFile: string;
    entries: readonly PromptEntry[];
    /** @default 3 */
    concurrency?: number;
    /** First poll interval; backs off to 60 s. @default 5_000 */
    pollIntervalMs?: number;
    /** Per job, from the start of its polling in this run. @default 3_600_000 */
    timeoutMs?: number;
    /** Submit again prompts whose earlier submission has an unknown outcome. @default false */
    resubmitUnknown?: boolean;
    signal?: AbortSignal;
    /** @default Math.random */
    random?: () => number;
    onEvent?: (event: BatchEvent) => void;
}
/** Every event names the prompt by its key and the start of its text. */
export type BatchEvent = {
    key: string;
    prompt: string;
} & ({
    kind: 'skipped';
    status: string;
    reason: string;
} | {
    kind: 'submitted';
    jobId: string | null;
} | {
    kind: 'status';
    jobId: string | null;
    status: string;
    reason?: string;
} | {
    kind: 'warning';
    message: string;
});
/** The start of a prompt on one line, for progress lines. */
export declare function promptStart(text: string, width?: number): string;
export interface BatchSummary {
    total: number;
    submitted: number;
    /** Final ledger rows for the file's prompts, in file order. */
    rows: LedgerRow[];
    counts: Record<string, number>;
    stopped: StopReason | null;
    stopMessage: string | null;
    exitCode: ExitCode;
}
export declare function message(error: unknown): string;
/**
 * What a failed POST means (DESIGN §2 rule 7): a reason to stop submitting (nothing was
 * created), a prompt the API refused (only a 400 is about the prompt itself), or an unknown
 * outcome that must not be resubmitted.
 */
export declare function classifySubmitError(error: unknown, projectId: string): {
    stop: StopReason;
    message?: string;
} | 'rejected' | 'unknown';
export declare function runBatch(options: BatchOptions): Promise<BatchSummary>;
