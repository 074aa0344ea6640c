import type { LedgerRow } from './ledger.js';
/** A message as asked for: its job by API id or by the prompt key of the job ledger. */
export interface MessageRequest {
    /** 1-based line in the file (1 on the command line). */
    line: number;
    jobId?: string;
    promptKey?: string;
    prompt: string;
    id?: string;
}
/** A message ready to send: its job resolved. */
export interface MessageEntry {
    key: string;
    jobId: string;
    /** The job's row in the job ledger, when it has one. */
    promptKey: string | null;
    prompt: string;
    line: number;
}
/** The key of a message without an id: `sha256:` and 16 hex digits of its job id and text. */
export declare function messageKey(jobId: string, prompt: string): string;
export declare function parseMessageFile(path: string, content: string): MessageRequest[];
export declare function readMessageFile(path: string): Promise<MessageRequest[]>;
/**
 * Resolves each message's job against the job ledger of its project: a prompt key must name
 * a submitted job; a job id need not be in the ledger (a job made elsewhere). Exact
 * duplicates are dropped with a warning; a key reused for another message is refused.
 */
export declare function resolveMessages(label: string, requests: readonly MessageRequest[], ledger: readonly LedgerRow[]): {
    entries: MessageEntry[];
    warnings: string[];
};
