import type { PromptInput } from './jobs.js';
export interface PromptsFromQueryOptions {
    /** The SQL; its last statement's rows become prompts. */
    sql: string;
    /** Prompt text with `{column}` fields; `{{` and `}}` are literal braces. */
    template: string;
    /** @default 'data/docpipe.duckdb' */
    db?: string;
    /** How long to wait for a writer that holds the file, in ms. @default 300_000 */
    lockTimeoutMs?: number;
    /** Names the SQL in messages (a file name). @default 'query' */
    label?: string;
    /** Told once if the file is held by a writer and the read waits. */
    onLockWait?: (holder: string) => void;
}
export interface PromptsFromQuery {
    columns: string[];
    /** One per row, in row order, keyed by the `id` column when there is one (for `submitJobs`). */
    prompts: PromptInput[];
}
/**
 * Runs the query read-only (beside other readers) and renders one prompt per row. A template
 * field with no matching column, bad SQL, or a row that renders empty is a UsageError. The
 * template is checked before the database is opened.
 */
export declare function promptsFromQuery(options: PromptsFromQueryOptions): Promise<PromptsFromQuery>;
