export type TemplatePart = {
    kind: 'text';
    text: string;
} | {
    kind: 'field';
    name: string;
};
export interface Template {
    parts: TemplatePart[];
    /** The distinct field names, in order of first use. */
    fields: string[];
}
/** Parses a template; an unclosed or stray brace, or an empty field, is a UsageError naming where. */
export declare function parseTemplate(text: string): Template;
/** Every field must be a column of the query: the first that is not is a UsageError naming it. */
export declare function checkTemplateFields(template: Template, columns: readonly string[]): void;
/**
 * A value as prompt text: NULL is empty, a date (midnight UTC) is `YYYY-MM-DD`, a timestamp
 * ISO 8601, a fraction six significant digits (round in SQL for fewer), a list or struct JSON.
 */
export declare function formatValue(value: unknown): string;
export declare function renderTemplate(template: Template, row: Readonly<Record<string, unknown>>): string;
/** A rendered prompt, keyed by the row's `id` column when the query has one. */
export interface RenderedPrompt {
    prompt: string;
    id?: string;
}
/**
 * One prompt per row, in row order. A row whose prompt renders empty, or whose `id` is NULL,
 * is a UsageError naming the row (1-based): nothing from a half-understood query is submitted.
 */
export declare function renderPromptRows(template: Template, columns: readonly string[], rows: readonly Record<string, unknown>[]): RenderedPrompt[];
