import { JobLedger } from '../jobs/ledger.js';
import { type MessageEntry, type MessageRequest } from '../jobs/message-file.js';
import { type MessageEvent, type MessagesSummary } from '../jobs/run-messages.js';
import { type CommonOptions } from './common.js';
import { type JobFollowOptions } from './jobs.js';
/** A message given in code: the job by its API id or by its prompt key in the ledger. */
export interface MessageInput {
    jobId?: string;
    promptKey?: string;
    prompt: string;
    /** @default `sha256:` and 16 hex digits of the job id and the text */
    id?: string;
}
export interface SendMessagesOptions extends CommonOptions, JobFollowOptions {
    project: string;
    /** A `.jsonl` file of `{"jobId"|"promptKey", "prompt", "id"?}` lines, or the messages themselves. */
    messages: string | readonly MessageInput[];
    /** Recorded as each message's `source_file`. @default the file's path, or `'library'` */
    source?: string;
    /** Jobs followed at once (a job's own messages always go one after another). @default 3 */
    concurrency?: number;
    /** Send again messages whose earlier POST has an unknown outcome. @default false */
    resendUnknown?: boolean;
    onEvent?: (event: MessageEvent) => void;
}
export interface SendMessagesResult extends MessagesSummary {
    runId: string;
    /** Duplicate messages that were dropped, one line each. */
    warnings: string[];
}
/** The messages with their jobs resolved against the project's job ledger. */
export declare function planMessages(ledger: JobLedger, projectId: string, label: string, requests: readonly MessageRequest[]): Promise<{
    entries: MessageEntry[];
    warnings: string[];
}>;
/**
 * Sends each message once and follows its job again to its end. Resolves to one ledger row
 * per message and `exitCode` (0 every message sent and its job ended, or refused by the API;
 * 1 an unknown outcome or a job still active at the timeout; 75 the request cap stopped
 * sending; 130 interrupted).
 */
export declare function sendMessages(options: SendMessagesOptions): Promise<SendMessagesResult>;
