import type { ExitCode } from '../core/errors.js';
import type { CliIo, GlobalArgs } from './io.js';
import type { SessionOptions } from './session.js';

/** Shared by the command modules of one CLI invocation. */
export interface CliContext {
  io: CliIo;
  /** Set by the command that ran; 0 unless it says otherwise. */
  exitCode: ExitCode;
  /** Only for typing handler arguments. */
  readonly globals: GlobalArgs;
  /** HTTP client overrides (tests, benchmark). */
  http?: SessionOptions['http'];
}
