import type { Argv, CommandModule } from 'yargs';
import { type PromptEntry } from '../../jobs/prompt-files.js';
import { type CliContext } from '../context.js';
import { type GlobalArgs } from '../io.js';
/** The options of `jobs submit`, which `jobs from-query` shares. */
export declare function submitOptions<T>(yargs: Argv<T>): Argv<T & {
    concurrency: number;
} & {
    "poll-interval": number;
} & {
    timeout: number;
} & {
    "jobs-per-hour": number;
} & {
    "dry-run": boolean;
} & {
    "resubmit-unknown": boolean;
} & {
    results: string | undefined;
}>;
export type SubmitArgs = Awaited<ReturnType<typeof submitOptions>['argv']> & GlobalArgs;
/**
 * The checks of the options `jobs submit` and `jobs from-query` share, before anything is
 * read (the numbers are checked as they are parsed).
 */
export declare function checkSubmitArgs(args: SubmitArgs): void;
/**
 * Submits (or with --dry-run, plans) a batch through the ledger and reports it: what `jobs
 * submit` and `jobs from-query` share. `fullPrompts` prints each prompt whole in a dry run.
 */
export declare function submitEntries(ctx: CliContext, args: SubmitArgs, batch: {
    name: 'jobs submit' | 'jobs from-query';
    entries: readonly PromptEntry[];
    source: string;
    fullPrompts?: boolean;
}): Promise<void>;
export declare function jobsCommand(ctx: CliContext): CommandModule;
