import { type ExitCode } from '../core/errors.js';
import { type CliIo } from './io.js';
import type { SessionOptions } from '../lib/session.js';
export interface RunCliOptions {
    io?: CliIo;
    http?: SessionOptions['http'];
}
/** The version of this package, read from package.json (beside both src/ and dist/). */
export declare function packageVersion(): string;
/** Runs the CLI; resolves to the exit code (it never calls process.exit). */
export declare function runCli(argv: string[], options?: RunCliOptions): Promise<ExitCode>;
