/**
 * A small RFC 4180 reader: comma-separated fields, double-quoted fields that may hold
 * commas, newlines and `""` escapes, records ended by LF or CRLF. Pure; it knows nothing
 * about files, so problems come back as a value with the line they belong to and the
 * caller names the file.
 *
 * Leniencies, chosen so hand-written files read the way their author meant:
 * - spaces or tabs before an opening quote are dropped (`1, "a, b"` is two fields);
 * - spaces or tabs after a closing quote are dropped;
 * - a quote inside an unquoted field is an ordinary character (`say "hi"`).
 * Text after a closing quote (`"a"b`) is an error rather than a guess.
 */
export interface CsvRecord {
    /** 1-based line on which the record starts. */
    line: number;
    /** Raw field values: quotes removed, `""` unescaped, nothing trimmed. */
    fields: string[];
}
export type CsvResult = {
    ok: true;
    records: CsvRecord[];
} | {
    ok: false;
    line: number;
    reason: string;
};
/** Splits CSV text into records. A trailing line break does not make an extra record. */
export declare function parseCsv(text: string): CsvResult;
