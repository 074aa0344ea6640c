/**
 * Structured logging to stderr: one JSON object a line for cron and log shippers, or a short
 * human line on a terminal. Results (summaries, tables, query output) go to stdout instead,
 * through the command's own output, never through the logger.
 */
import { jsonSafe, neutralise } from './neutralise.js';

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  readonly format: LogFormat;
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export interface LoggerOptions {
  format: LogFormat;
  /** @default process.stderr.write */
  write?: (line: string) => void;
  /** Print debug lines. @default false */
  verbose?: boolean;
  /** @default () => new Date() */
  now?: () => Date;
}

export function defaultLogFormat(stream: { isTTY?: boolean } = process.stderr): LogFormat {
  return stream.isTTY ? 'text' : 'json';
}

/** A field's value as JSON sees it: a bigint as its digits (a count DuckDB read), an Error as its message. */
const plainValue = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v instanceof Error ? v.message : v);

/** A field's value on a text line: text as it is, anything else as its JSON text. */
function fieldText(value: unknown): string {
  const plain = plainValue('', value);
  return typeof plain === 'string' ? plain : JSON.stringify(plain, plainValue);
}

/** A terminal line: values from the API may carry escape sequences, shown as escapes instead. */
function formatText(level: LogLevel, event: string, fields: LogFields): string {
  const parts = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${neutralise(fieldText(v))}`);
  const prefix = level === 'info' ? '' : `${level}: `;
  return `${prefix}${neutralise(event)}${parts.length > 0 ? ' ' + parts.join(' ') : ''}`;
}

export function createLogger(options: LoggerOptions): Logger {
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const now = options.now ?? (() => new Date());
  const emit = (level: LogLevel, event: string, fields: LogFields = {}): void => {
    if (level === 'debug' && !options.verbose) return;
    // A field never stands for the line's own keys (ts, level, event); a BIGINT is its digits.
    const { ts: _ts, level: _level, event: _event, ...own } = fields;
    write(options.format === 'json' ? `${jsonSafe(JSON.stringify({ ts: now().toISOString(), level, event, ...own }, plainValue))}\n` : `${formatText(level, event, own)}\n`);
  };
  return {
    format: options.format,
    debug: (e, f) => emit('debug', e, f),
    info: (e, f) => emit('info', e, f),
    warn: (e, f) => emit('warn', e, f),
    error: (e, f) => emit('error', e, f),
  };
}
