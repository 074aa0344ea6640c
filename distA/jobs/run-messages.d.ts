import type { HttpClient } from '../api/http-client.js';
import type { Clock } from '../core/clock.js';
import { type ExitCode } from '../core/errors.js';
import { type StopReason } from '../core/outcome.js';
import type { JobLedger } from './ledger.js';
import { type MessageLedger, type MessageRow } from './message-ledger.js';
import type { MessageEntry } from './message-file.js';
export interface MessagesOptions {
    client: HttpClient;
    messages: MessageLedger;
    /** Kept in step for jobs it knows: the job works again after a message. */
    jobs: JobLedger;
    clock: Clock;
    projectId: string;
    sourceFile: string;
    entries: readonly MessageEntry[];
    /** Jobs followed at once. @default 3 */
    concurrency?: number;
    /** @default 5_000 */
    pollIntervalMs?: number;
    /** @default 3_600_000 */
    timeoutMs?: number;
    /** Send again messages whose earlier POST has an unknown outcome. @default false */
    resendUnknown?: boolean;
    signal?: AbortSignal;
    /** @default Math.random */
    random?: () => number;
    onEvent?: (event: MessageEvent) => void;
}
export type MessageEvent = {
    kind: 'skipped';
    key: string;
    jobId: string;
    reason: string;
} | {
    kind: 'sent';
    key: string;
    jobId: string;
    status: string;
} | {
    kind: 'status';
    key: string;
    jobId: string;
    status: string;
};
export interface MessagesSummary {
    total: number;
    sent: number;
    /** Final ledger rows of the messages, in input order. */
    rows: MessageRow[];
    /** By message status, and for sent messages by the job's status (`sent: completed`). */
    counts: Record<string, number>;
    stopped: StopReason | null;
    stopMessage: string | null;
    exitCode: ExitCode;
}
export declare function runMessages(options: MessagesOptions): Promise<MessagesSummary>;
