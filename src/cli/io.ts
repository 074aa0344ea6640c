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

/**
 * Writes to a process stream that a reader may close early (`docpipe query ... | head`): once
 * it is closed (EPIPE), later writes are dropped, and the command ends as it would have,
 * instead of dying on an unhandled stream error with a stack trace.
 */
function streamWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') closed = true;
    else throw error;
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

let processWriters: { stdout: (text: string) => void; stderr: (text: string) => void } | undefined;

export function processIo(signal?: AbortSignal): CliIo {
  processWriters ??= { stdout: streamWriter(process.stdout), stderr: streamWriter(process.stderr) };
  return {
    stdout: processWriters.stdout,
    stderr: processWriters.stderr,
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
