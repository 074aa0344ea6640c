/** What a command may touch of the process: output streams, environment, clock, interrupt. */
import { systemClock, type Clock } from '../core/clock.js';
import { createLogger, defaultLogFormat, type LogFormat, type Logger } from '../core/logger.js';

export interface CliIo {
  /** Results: summaries, tables, query output. */
  stdout: (text: string) => void;
  /** Logs and progress. */
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress bar and text logs). */
  isTTY: boolean;
  clock: Clock;
  /** Aborted with an InterruptedError on Ctrl-C. */
  signal?: AbortSignal;
}

export function processIo(signal?: AbortSignal): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    isTTY: Boolean(process.stderr.isTTY),
    clock: systemClock,
    ...(signal ? { signal } : {}),
  };
}

export interface GlobalArgs {
  apiKey?: string | undefined;
  apiKeyFile?: string | undefined;
  baseUrl: string;
  project?: string[] | undefined;
  db: string;
  logFormat?: string | undefined;
  requestsPerHour?: number | undefined;
  maxRequests?: number | undefined;
  /** Seconds to wait for a database file another process holds. */
  lockTimeout: number;
  verbose: boolean;
}

export function loggerFor(io: CliIo, args: Pick<GlobalArgs, 'logFormat' | 'verbose'>): Logger {
  const format: LogFormat = (args.logFormat as LogFormat | undefined) ?? defaultLogFormat({ isTTY: io.isTTY });
  return createLogger({ format, write: io.stderr, verbose: args.verbose, now: () => new Date(io.clock.now()) });
}
