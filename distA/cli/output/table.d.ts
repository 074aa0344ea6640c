export declare const OUTPUT_FORMATS: readonly ["table", "csv", "json"];
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
/**
 * A Date as text: `YYYY-MM-DD` at midnight UTC (a DATE), else `YYYY-MM-DD HH:MM:SS[.fff]+00`
 * like DuckDB prints a TIMESTAMPTZ in UTC.
 */
export declare function formatDate(date: Date): string;
export declare function formatCell(value: unknown): string;
/** How a table shrinks to fit its line width. */
export interface TableFit {
    /** The widest a line may be. @default Infinity */
    lineWidth?: number;
    /** Columns that shrink first, in this order, each down to its minimum before the next. */
    shrinkFirst?: readonly string[];
    /** The narrowest a column may get. @default its header's length, and at least 8 */
    minWidths?: Readonly<Record<string, number>>;
}
/**
 * Pure: column widths that fit `fit.lineWidth` (two spaces between columns). The columns
 * of `shrinkFirst` give up characters first, in order; then the widest column, a character at
 * a time. No column goes below its minimum, even when the line cannot fit.
 */
export declare function fitWidths(widths: readonly number[], headers: readonly string[], fit?: TableFit): number[];
/**
 * @param maxWidth the widest a cell may be
 * @param fit how the table shrinks to a line width (cells cut short end in `…`)
 */
export declare function renderTable(columns: readonly string[], rows: readonly Record<string, unknown>[], maxWidth?: number, fit?: TableFit): string;
export declare function renderCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string;
export declare function renderJsonLines(rows: readonly Record<string, unknown>[]): string;
export declare function renderRows(format: OutputFormat, columns: readonly string[], rows: readonly Record<string, unknown>[], fit?: TableFit): string;
