/**
 * What `--help` shows: a command's own options first, then the global ones (each naming its
 * DOCPIPE_* variable), then examples and, where a command reads a file, its format.
 */
import type { Argv } from 'yargs';
/** The options every command takes (declared once, in main.ts). */
export declare const GLOBAL_OPTIONS: readonly ["api-key", "api-key-file", "base-url", "project", "db", "log-format", "requests-per-hour", "max-requests", "lock-timeout", "verbose"];
/** Pure: the environment variable an option is read from, e.g. `--max-requests` → DOCPIPE_MAX_REQUESTS. */
export declare function envName(option: string): string;
/** Pure: an option's help text with the variable it is also read from. */
export declare function withEnv(option: string, describe: string): string;
export interface CommandHelp {
    /** `[command line, what it does]`; the command line without the leading `docpipe`. */
    examples: readonly (readonly [string, string])[];
    /** Text after the examples: the format of the file the command reads, notes. */
    epilogue?: string;
}
/**
 * Ends a command's builder: groups its own options under "Options:" ahead of "Global
 * options:", and adds its examples and epilogue.
 */
export declare function commandHelp<T>(yargs: Argv<T>, help: CommandHelp): Argv<T>;
