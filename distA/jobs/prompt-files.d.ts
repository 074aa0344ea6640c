export declare const PROMPT_FILE_FORMATS: readonly ["txt", "jsonl", "csv"];
export type PromptFileFormat = (typeof PROMPT_FILE_FORMATS)[number];
export interface PromptEntry {
    /** The entry's `id` if given (as a string), else `sha256:` + 16 hex chars of the prompt's hash. */
    key: string;
    /** Trimmed prompt text; inner newlines kept (CRLF becomes LF). */
    prompt: string;
    /** 1-based line where the entry starts in the file. */
    line: number;
    /** The user's id, when given. */
    id?: string;
}
export interface PromptFile {
    path: string;
    format: PromptFileFormat;
    entries: PromptEntry[];
    /** One line each, `<path>:<line>: …` (duplicates that were dropped). */
    warnings: string[];
}
/** Reads a prompt file from disk. Throws `UsageError` for a missing, unreadable or bad file. */
export declare function readPromptFile(path: string): Promise<PromptFile>;
/** Parses the bytes of a prompt file; `path` picks the format and names the file in messages. */
export declare function parsePromptFile(path: string, bytes: Uint8Array): PromptFile;
/** The ledger key of a prompt without an id: `sha256:` + the first 16 hex chars of its hash. */
export declare function promptKey(prompt: string): string;
/** The format of a prompt file, from its extension (case-insensitive). */
export declare function promptFileFormatOf(path: string): PromptFileFormat;
/** An entry as read, before it is keyed. */
export interface RawEntry {
    prompt: string;
    line: number;
    id: string | undefined;
}
/** Keys entries, keeps the first of each key, and refuses an id reused for another prompt. */
/** Keys the entries and drops exact duplicates (a key reused for another prompt is refused). */
export declare function collect(path: string, format: PromptFileFormat, raw: RawEntry[]): PromptFile;
