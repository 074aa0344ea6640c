/**
 * The message ledger (`agent_messages`): one row per follow-up message, written as `pending`
 * before its POST, so a crash between the two leaves a trace and nothing is sent twice. Each
 * write is one statement, committed before its call returns; writes that meet share one short
 * write (Store.run), like the job ledger's.
 */
import { type AgentJob } from '../api/schemas.js';
import type { Store } from '../load/store.js';
/** A message's own status (the job's is `jobStatus`). */
export declare const MESSAGE_STATUSES: readonly ["pending", "sent", "unknown", "rejected"];
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export interface MessageRow {
    projectId: string;
    messageKey: string;
    jobId: string;
    promptKey: string | null;
    prompt: string;
    status: string;
    /** The job's status in the API's answer to the message. */
    statusAfter: string | null;
    /** The job's status as last seen while followed (or `timed_out`). */
    jobStatus: string | null;
    prLink: string | null;
    sentAt: string | null;
    finishedAt: string | null;
    error: string | null;
    sourceFile: string | null;
    attempts: number;
    polls: number;
    /** A POST was started and not provably without effect. */
    postStarted: boolean;
}
/** A message after which nothing more happens without the user asking. */
export declare function isMessageDone(row: Pick<MessageRow, 'status' | 'jobStatus'>): boolean;
export declare class MessageLedger {
    private readonly store;
    private readonly runId;
    constructor(store: Store, runId: string);
    get(projectId: string, messageKey: string): Promise<MessageRow | undefined>;
    list(filter?: {
        projectId?: string;
        jobId?: string;
    }): Promise<MessageRow[]>;
    /** Written before the POST. */
    markPending(projectId: string, message: {
        key: string;
        jobId: string;
        promptKey: string | null;
        prompt: string;
    }, sourceFile: string, now: number): Promise<void>;
    /** The API answered the message (`sent`) or a poll of its job: the job's status and PR now. */
    recordJob(projectId: string, messageKey: string, job: AgentJob, now: number, opts?: {
        sent?: boolean;
    }): Promise<void>;
    /**
     * A local outcome: the message's (`unknown`, `rejected`), the job's (`timed_out`), or an
     * error kept beside the status.
     */
    recordOutcome(projectId: string, messageKey: string, outcome: {
        status?: MessageStatus;
        jobStatus?: 'timed_out';
        error: string | null;
        nothingCreated?: boolean;
    }, now: number): Promise<void>;
}
