/**
 * What every library entry point shares: where the API and the database are, the clock, the
 * logger and the interrupt signal. Public options are all optional but the key, each with a
 * documented default, and normalised once here.
 */
import { DEFAULT_BASE_URL, apiKeyProblem, checkBaseUrl, redactKeys, type HttpClientOptions } from '../api/http-client.js';
import { systemClock, type Clock } from '../core/clock.js';
import { closestWord } from '../core/did-you-mean.js';
import { projectIdProblem, shownProjectId } from '../core/domain.js';
import { fileLine } from '../core/text-file.js';
import { DatabaseBusyError, InterruptedError, UsageError, type ExitCode } from '../core/errors.js';
import { runExitCode } from '../core/outcome.js';
import { createLogger, type Logger } from '../core/logger.js';
import { checkDbPath, DEFAULT_DB_PATH, DEFAULT_LOCK_TIMEOUT_MS } from '../load/database.js';

export interface CommonOptions {
  /** The admin API key (`mint_…`). Never logged, printed or stored. */
  apiKey: string;
  /** @default 'https://api.mintlify.com' (plain http:// is refused except to loopback) */
  baseUrl?: string | undefined;
  /** The DuckDB file. @default 'data/docpipe.duckdb' */
  db?: string | undefined;
  /** How long to wait for a database file another process holds, in ms. @default 300_000 */
  lockTimeoutMs?: number | undefined;
  /** Cap on requests in this run. @default no cap */
  maxRequests?: number | undefined;
  /** Receives structured log lines (retries, waits, warnings). @default a logger that drops them */
  logger?: Logger | undefined;
  /** @default the system clock */
  clock?: Clock | undefined;
  /** Aborting it stops the run cleanly, with everything finished so far saved (exit code 130). */
  signal?: AbortSignal | undefined;
  /** HTTP client settings (timeouts, backoff) for tests and benchmarks. @default the client's own */
  http?: Partial<Omit<HttpClientOptions, 'apiKey' | 'baseUrl' | 'clock' | 'beforeAttempt' | 'afterAttempt' | 'onRetry'>> | undefined;
}

export interface ResolvedCommon {
  apiKey: string;
  baseUrl: string;
  /** In the shape the workspace takes (`lockTimeout` in seconds, like the CLI option). */
  workspace: { db: string; lockTimeout: number };
  maxRequests: number | undefined;
  logger: Logger;
  clock: Clock;
  signal: AbortSignal | undefined;
  http: CommonOptions['http'];
}

/** A logger that drops everything: a library prints nothing unless asked. */
export const silentLogger: Logger = createLogger({ format: 'json', write: () => undefined });

/** Whether a value behaves as an AbortSignal: what docpipe uses of one. */
function isSignalLike(value: unknown): value is AbortSignal {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<Record<'aborted' | 'addEventListener' | 'removeEventListener' | 'throwIfAborted', unknown>>;
  return typeof s.aborted === 'boolean' && [s.addEventListener, s.removeEventListener, s.throwIfAborted].every((f) => typeof f === 'function');
}

/** The callbacks the library's functions take: each, when given, must be a function (else it fails mid-run). */
const CALLBACKS = ['onPlan', 'onWindow', 'onWait', 'onEvent', 'onLockWait'] as const;

export function checkCallbacks(options: object): void {
  for (const name of CALLBACKS) {
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined && value !== null && typeof value !== 'function') throw new UsageError(`invalid ${name} '${String(value)}': expected a function`);
  }
}

/**
 * The `signal` option: what is not an AbortSignal would fail later, inside a wait, past every
 * catch. Any object that behaves as one is taken (a polyfill, another realm's); null is no signal.
 */
export function checkSignal(value: unknown): AbortSignal | undefined {
  const signal = value ?? undefined;
  if (signal !== undefined && !isSignalLike(signal)) {
    throw new UsageError(`invalid signal '${String(signal)}': expected an AbortSignal (e.g. AbortSignal.timeout(60_000))`);
  }
  return signal;
}

export function resolveCommon(options: CommonOptions, needsKey = true): ResolvedCommon {
  const apiKey = typeof options.apiKey === 'string' ? options.apiKey.trim() : '';
  if (needsKey && apiKey === '') throw new UsageError('no API key: pass apiKey (e.g. from DOCPIPE_API_KEY)');
  // Checked before anything is written, as the CLI does: a key that cannot go in a header.
  const keyProblem = needsKey ? apiKeyProblem(apiKey) : undefined;
  if (keyProblem) throw new UsageError(`${keyProblem}: check apiKey`);
  const lockTimeoutMs = checkLockTimeoutMs(options.lockTimeoutMs);
  const max = options.maxRequests;
  if (max !== undefined && (!Number.isInteger(max) || max < 0)) {
    throw new UsageError(`invalid maxRequests '${String(max)}': expected a whole number >= 0`);
  }
  const signal = checkSignal(options.signal);
  const logger: unknown = options.logger ?? undefined;
  if (logger !== undefined && !LOG_LEVELS.every((level) => typeof (logger as Partial<Record<string, unknown>> | null)?.[level] === 'function')) {
    throw new UsageError(`invalid logger '${String(logger)}': expected a Logger (an object with debug, info, warn and error functions)`);
  }
  checkHttpOptions(options.http);
  checkCallbacks(options);
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  // Checked before anything is written: a run that cannot talk to the API records nothing.
  if (needsKey) checkBaseUrl(baseUrl, 'baseUrl');
  return {
    apiKey,
    baseUrl,
    workspace: { db: options.db === undefined ? DEFAULT_DB_PATH : checkDbPath(options.db, 'db'), lockTimeout: lockTimeoutMs / 1000 },
    maxRequests: max,
    logger: (logger as Logger | undefined) ?? silentLogger,
    clock: options.clock ?? systemClock,
    signal,
    // A rejected key's message names where it came from: for a library caller, its apiKey
    // (the CLI passes its own: DOCPIPE_API_KEY, --api-key or the key file).
    http: { keySource: 'apiKey', baseUrlSource: 'baseUrl', ...options.http },
  };
}

/** The options every entry point that talks to the API takes (CommonOptions). */
export const COMMON_OPTION_NAMES = ['apiKey', 'baseUrl', 'db', 'lockTimeoutMs', 'maxRequests', 'logger', 'clock', 'signal', 'http'] as const;

/**
 * The option names of an entry point, for checkOptionNames. The list must name every key of
 * `T` or it does not compile, so the check cannot fall behind the options' interface.
 */
export function optionNames<T>(): <const A extends readonly (keyof T & string)[]>(
  names: A & ([Exclude<keyof T, A[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, A[number]> }),
) => ReadonlySet<string> {
  return (names) => new Set(names);
}

/**
 * Refuses an option the entry point does not take, as the CLI refuses an unknown flag: a
 * misspelt or misremembered option (`grain` for `window`) would otherwise be ignored and the
 * run go on with the default. An option given as undefined is left alone (a caller's spread
 * of optional settings).
 */
export function checkOptionNames(options: unknown, known: ReadonlySet<string>, where: { entry: string } | { prefix: string }): void {
  const prefix = 'prefix' in where ? where.prefix : '';
  const of = 'entry' in where ? ` of ${where.entry}` : '';
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new UsageError(`invalid options${of} '${String(options)}': expected an object`);
  }
  for (const [name, value] of Object.entries(options)) {
    if (known.has(name) || value === undefined) continue;
    const near = closestWord(name, [...known]);
    const names = (list: readonly string[]): string => list.map((n) => `${prefix}${n}`).join(', ');
    throw new UsageError(`unknown option '${prefix}${name}'${of}: ${near ? `did you mean '${prefix}${near}'?` : `the options are ${names([...known])}`}`);
  }
}

/** The HTTP client's settings a caller may pass (CommonOptions.http). */
const HTTP_OPTION_NAMES = optionNames<NonNullable<CommonOptions['http']>>()([
  'timeoutMs', 'retries', 'minBackoffMs', 'maxBackoffMs', 'maxRetryAfterMs', 'maxRetryAfterWaits', 'unsaidRetryAfterMs', 'maxRetryTimeMs', 'transport',
  'random', 'keySource', 'baseUrlSource',
]);

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** `lockTimeoutMs` as given to any entry point: milliseconds >= 0 (a number), default 5 minutes. */
export function checkLockTimeoutMs(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_LOCK_TIMEOUT_MS;
  // Infinity waits as long as it takes.
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new UsageError(`invalid lockTimeoutMs '${String(value)}': expected milliseconds >= 0`);
  }
  return value;
}

/** The HTTP client's numbers (tests and benchmarks set them): what is given must be a number >= 0. */
function checkHttpOptions(http: unknown): void {
  if (http === undefined || http === null) return;
  if (typeof http !== 'object') throw new UsageError(`invalid http '${String(http)}': expected an object of client settings`);
  checkOptionNames(http, HTTP_OPTION_NAMES, { prefix: 'http.' });
  for (const [name, value] of Object.entries(http)) {
    if (value === undefined || name === 'keySource' || name === 'baseUrlSource' || name === 'transport' || name === 'random') continue;
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new UsageError(`invalid http.${name} '${String(value)}': expected a number >= 0`);
    }
  }
}

/**
 * A yes/no option (`name` as the caller knows it): true or false; absent (undefined, null) is
 * `fallback`. Anything else ('no', 0) is refused rather than read by its truthiness: `'no'`
 * would be yes.
 */
export function yesNo(name: string, value: unknown, fallback = false): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new UsageError(`invalid ${name} '${String(value)}': expected true or false`);
  return value;
}

/** A positive number option, named as the caller knows it (`--concurrency`, `concurrency`). */
export function positive(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`invalid ${name} '${String(value)}': expected a ${integer ? 'whole ' : ''}number > 0`);
  }
  return value;
}

/** A project id a caller passed (`name`: the option, as the caller knows it), trimmed and checked as the CLI checks --project. */
export function checkProjectId(name: string, value: unknown): string {
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new UsageError(`invalid ${name} '${String(value)}': expected a project id (text)`);
  }
  const id = typeof value === 'string' ? value.trim() : '';
  if (id === '') throw new UsageError(`no project: pass ${name} (or set DOCPIPE_PROJECT)`);
  const problem = projectIdProblem(id);
  if (problem) throw new UsageError(`invalid ${name} '${shownProjectId(id)}': ${problem}`);
  return id;
}

/** The stop fields of the summary of a run that ended before it began (see stopBeforeStart). */
export interface StopBeforeStart {
  stopped: 'locked' | 'interrupted';
  stopMessage: string;
  exitCode: ExitCode;
}

/**
 * Pure: how a run ends that met `error` before it began (waiting for the database file):
 * `locked` (held past the lock wait), `interrupted` (stopped while it waited), or null (an
 * error of another kind, thrown on).
 */
export function stopBeforeStart(error: unknown): StopBeforeStart | null {
  const stopped = error instanceof DatabaseBusyError ? 'locked' : error instanceof InterruptedError ? 'interrupted' : null;
  return stopped === null ? null : { stopped, stopMessage: (error as Error).message, exitCode: runExitCode(stopped, false) };
}

/**
 * Runs a library entry point: an error it throws carries no copy of the API key, in its
 * message, its stack or any text field of it or its causes (an option's value echoed in a
 * UsageError, when the key was passed where a URL or a project id goes). The CLI blanks the
 * key in its own way (it knows where the key came from).
 */
export async function withoutKey<T>(apiKey: unknown, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw blankKey(error, apiKey);
  }
}

function blankKey(error: unknown, apiKey: unknown): unknown {
  // As given and as used (trimmed). A key of digits only is left (see redactKey).
  const keys = typeof apiKey === 'string' ? [...new Set([apiKey, apiKey.trim()])].filter((k) => k.trim() !== '' && /[^0-9]/.test(k)) : [];
  if (keys.length === 0) return error;
  const seen = new Set<object>();
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null && !seen.has(current); depth++) {
    seen.add(current);
    const fields = current as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(current)) {
      const value = fields[name];
      if (typeof value !== 'string' || !keys.some((k) => value.includes(k))) continue;
      try {
        fields[name] = redactKeys(value, keys);
      } catch {
        // a read-only field: left as it is
      }
    }
    current = fields.cause;
  }
  return error;
}

/**
 * Refuses (UsageError, exit 2) a batch whose prompts hold the API key (a key file given as the
 * prompt file, say): the key would go to the agent and into the ledger. The key is not shown.
 */
export function refuseKeyInPrompts(entries: readonly { prompt: string; line: number }[], apiKey: string, label: string): void {
  const key = apiKey.trim();
  const found = key === '' ? undefined : entries.find((e) => e.prompt.includes(key));
  if (found) throw new UsageError(`${fileLine(label, found.line)}: the prompt holds the API key; not sent`);
}

/**
 * A run that records what it did (an export, a sync, a job batch, messages) needs a file: an
 * in-memory database would spend requests (and create jobs) and keep nothing, each short write
 * opening a new empty one. `name`: the option as the caller knows it (`--db` on the command line).
 */
export function requireKeptDb(db: string, name = 'db'): void {
  if (db === ':memory:') throw new UsageError(`invalid ${name} '${db}': an in-memory database keeps nothing after the run; name a file (e.g. data/docpipe.duckdb)`);
}
