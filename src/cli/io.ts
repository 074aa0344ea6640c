/** What a command may touch of the process: output streams, environment, clock, interrupt. */
import { systemClock, type Clock } from '../core/clock.js';
import { createLogger, defaultLogFormat, LOG_FORMATS, type LogFields, type LogFormat, type Logger, type LogLevel } from '../core/logger.js';

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

/**
 * Pure: the log format a command line asks for, read without parsing it (for the lines written
 * where the parse failed or has not run: the final error, the stop notice). The last
 * `--log-format` typed before a `--`, else DOCPIPE_LOG_FORMAT, else text on a terminal and JSON
 * otherwise. A value that is not a format counts as not given (the parse refuses it).
 */
export function requestedLogFormat(argv: readonly string[], env: Record<string, string | undefined>, isTTY: boolean): LogFormat {
  const known = (value: string | undefined): LogFormat | undefined =>
    (LOG_FORMATS as readonly string[]).includes(value ?? '') ? (value as LogFormat) : undefined;
  let typed: string | undefined;
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    const arg = argv[i]!;
    if (arg === '--log-format' || arg === '--logFormat') {
      typed = argv[i + 1];
      i++;
    } else if (arg.startsWith('--log-format=') || arg.startsWith('--logFormat=')) {
      typed = arg.slice(arg.indexOf('=') + 1);
    }
  }
  return known(typed) ?? known(env.DOCPIPE_LOG_FORMAT) ?? defaultLogFormat({ isTTY });
}

export function loggerFor(io: CliIo, args: Pick<GlobalArgs, 'logFormat' | 'verbose'>): Logger {
  const format: LogFormat = (args.logFormat as LogFormat | undefined) ?? defaultLogFormat({ isTTY: io.isTTY });
  return createLogger({ format, write: io.stderr, verbose: args.verbose, now: () => new Date(io.clock.now()) });
}

/**
 * A line for the person reading stderr: `docpipe: TEXT` in text logs; under JSON logs a log
 * line like every other (`event`, `fields`, and TEXT under `textField`), so that a log shipper
 * reading stderr finds nothing but JSON.
 */
export function tellStderr(
  io: CliIo,
  format: LogFormat,
  line: { level: LogLevel; event: string; text: string; textField?: string; fields?: LogFields },
): void {
  if (format === 'text') {
    io.stderr(`docpipe: ${line.text}\n`);
    return;
  }
  const logger = createLogger({ format, write: io.stderr, verbose: true, now: () => new Date(io.clock.now()) });
  logger[line.level](line.event, { [line.textField ?? 'detail']: line.text, ...line.fields });
}
