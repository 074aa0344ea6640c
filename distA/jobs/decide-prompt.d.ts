/**
 * What to do with one prompt of a file, given its ledger row: the one decision that both the
 * batch runner and `jobs submit --dry-run` take, so that the dry run says what the run does.
 * Pure: the caller reads the ledger once and applies the decision.
 */
import { type LedgerRow } from './ledger.js';
import type { PromptEntry } from './prompt-files.js';
export declare const PROMPT_ACTIONS: readonly ["submit", "resubmit", "poll", "skip"];
export type PromptAction = (typeof PROMPT_ACTIONS)[number];
export interface PromptDecision {
    action: PromptAction;
    /** The row's status once the decision is applied (`unknown` for a POST cut off mid-flight); null for a new prompt. */
    status: string | null;
    /** Why, in a few words (shown by the dry run and in skip events). */
    reason: string;
    /** An earlier run was cut off between marking the POST and learning its fate: record `unknown` first. */
    markUnknown: boolean;
    /** A line for the user, e.g. an id reused with other text. */
    warning: string | null;
}
export interface DecideOptions {
    /** Submit again a prompt whose earlier submission has an unknown outcome. @default false */
    resubmitUnknown?: boolean;
}
export declare function decidePrompt(entry: PromptEntry, row: LedgerRow | undefined, options?: DecideOptions): PromptDecision;
