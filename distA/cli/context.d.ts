import type { Argv, CommandModule } from 'yargs';
import type { ExitCode } from '../core/errors.js';
import type { CliIo, GlobalArgs } from './io.js';
import type { SessionOptions } from '../lib/session.js';
/** Shared by the command modules of one CLI invocation. */
export interface CliContext {
    io: CliIo;
    /** Set by the command that ran; 0 unless it says otherwise. */
    exitCode: ExitCode;
    /** HTTP client overrides (tests, benchmark). */
    http?: SessionOptions['http'];
}
/**
 * Declares a command whose handler gets the arguments its builder declares, plus the global
 * options (yargs types the handler's argument loosely; this is the one place that narrows it).
 */
export declare function defineCommand<B extends (yargs: Argv) => Argv<unknown>>(spec: {
    command: string;
    describe: string;
    builder: B;
    handler: (args: Awaited<ReturnType<B>['argv']> & GlobalArgs) => Promise<void>;
}): CommandModule;
