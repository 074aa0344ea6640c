/**
 * The error hierarchy. Every error docpipe raises on purpose is a DocpipeError carrying
 * the process exit code it maps to; the CLI's single top-level handler turns it into one
 * line and that code. Messages never contain the API key, and a wrapped error stays in
 * `cause` rather than being pasted into the message.
 */

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  budget: 75,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class DocpipeError extends Error {
  readonly exitCode: ExitCode = EXIT.failed;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad command line, bad config or bad input file: exit 2. */
export class UsageError extends DocpipeError {
  override readonly exitCode = EXIT.usage;
}

/**
 * A database path that cannot be a docpipe database (missing where it must exist, a folder,
 * another kind of file, a folder that cannot be made). The message names the path; the CLI
 * adds where a path comes from (--db or DOCPIPE_DB), a library caller knows its own option.
 */
export class DatabasePathError extends UsageError {}

/** A response that does not match the API's schema. */
export class DataError extends DocpipeError {}

/** A body that is not JSON at all (truncated, or an HTML error page): usually transient. */
export class MalformedResponseError extends DataError {}

/** A database failure, wrapped with the table or statement involved. */
export class DatabaseError extends DocpipeError {}

/**
 * The database file stayed held by another process (a reader or another writer) for longer
 * than the lock wait: exit 75, nothing is lost (received pages stay in the spool).
 */
export class DatabaseBusyError extends DatabaseError {
  override readonly exitCode = EXIT.budget;
}

/** The request budget (per hour, or the per-run cap) is spent: exit 75, work left for next run. */
export class BudgetExhaustedError extends DocpipeError {
  override readonly exitCode = EXIT.budget;
}

/**
 * The API is failing in a way that would eat the hour's budget for nothing (requests that
 * fail again and again, pages that repeat): exit 75, the rest of the budget kept for later.
 */
export class ApiFailingError extends DocpipeError {
  override readonly exitCode = EXIT.budget;
}

/**
 * A prompt another run (a second batch of the same prompts at once) took after this one read
 * the ledger: this run sends nothing for it.
 */
export class PromptTakenError extends DocpipeError {}

/**
 * A window walk another run took over while this one could not show it was alive (stopped for
 * longer than its heartbeat lasts): this run writes nothing more to it and leaves it.
 */
export class WalkTakenOverError extends DocpipeError {}

/** Ctrl-C or SIGTERM: exit 130 after saving what finished. */
export class InterruptedError extends DocpipeError {
  override readonly exitCode = EXIT.interrupted;
}

/** A non-2xx HTTP response. `url` never carries the key (it is only ever sent in a header). */
export class HttpError extends DocpipeError {
  readonly status: number;
  readonly method: string;
  readonly url: string;
  /** The server's `error` field, or the start of a plain-text body. */
  readonly serverMessage: string | undefined;

  constructor(
    status: number,
    method: string,
    url: string,
    serverMessage?: string,
    options?: ErrorOptions,
  ) {
    const detail = serverMessage ? `: ${serverMessage}` : '';
    super(`${method} ${url} failed with HTTP ${status}${detail}`, options);
    this.status = status;
    this.method = method;
    this.url = url;
    this.serverMessage = serverMessage;
  }
}

/**
 * HTTP 401 or 403: the key is expired or wrong, lacks a scope (GET needs `read`, POST
 * `write`), or is used from an IP it does not allow. Every later request would fail too.
 */
export class KeyRejectedError extends HttpError {
  /** `keySource`: where the key came from, as the user gave it (`--api-key-file 'key.txt'`). */
  constructor(status: number, method: string, url: string, serverMessage?: string, keySource = 'DOCPIPE_API_KEY') {
    super(status, method, url, serverMessage);
    this.message =
      status === 403
        ? `the API rejected the key (HTTP 403${serverMessage ? `: ${serverMessage}` : ''}): check ${keySource}, its scopes (GET needs read, POST write) and the IPs it allows`
        : `the API rejected the key (HTTP ${status}): check ${keySource}`;
  }
}

/** HTTP 429 (or 503 with Retry-After): `retryAfterMs` is what the server asked us to wait. */
export class RateLimitError extends HttpError {
  readonly retryAfterMs: number | undefined;

  constructor(
    status: number,
    method: string,
    url: string,
    retryAfterMs: number | undefined,
    serverMessage?: string,
  ) {
    super(status, method, url, serverMessage);
    this.retryAfterMs = retryAfterMs;
    if (retryAfterMs !== undefined) this.message += ` (the API asks to retry in ${Math.ceil(retryAfterMs / 1000)} s)`;
  }
}

/**
 * Where a transport failure happened. `before-send`: the connection was never made, so the
 * server provably saw nothing (safe to retry a POST). `after-send`: reset, dropped or timed
 * out once the request may have reached the server (a POST's outcome is unknown).
 */
export type NetworkPhase = 'before-send' | 'after-send';

export class NetworkError extends DocpipeError {
  readonly method: string;
  readonly url: string;
  readonly phase: NetworkPhase;
  readonly code: string | undefined;

  constructor(
    method: string,
    url: string,
    phase: NetworkPhase,
    code: string | undefined,
    options?: ErrorOptions,
  ) {
    super(`${method} ${url} failed: ${code ?? 'network error'}`, options);
    this.method = method;
    this.url = url;
    this.phase = phase;
    this.code = code;
  }
}

/** Every request has a deadline; this one passed it (outcome unknown for a POST). */
export class TimeoutError extends NetworkError {}

/**
 * The API's host could not be reached at all (connection refused, unknown host) after every
 * retry: nothing was sent, and every later request would fail the same way, so the run ends.
 */
/** How the CLI names where the API's base URL comes from, in messages about it. */
export const CLI_BASE_URL_SOURCE = '--base-url (DOCPIPE_BASE_URL)';

export class ApiUnreachableError extends DocpipeError {
  readonly origin: string;
  readonly code: string | undefined;

  constructor(origin: string, code: string | undefined, options?: ErrorOptions, baseUrlSource = CLI_BASE_URL_SOURCE) {
    super(`cannot connect to ${origin}${code ? ` (${code})` : ''}: check ${baseUrlSource} and the network`, options);
    this.origin = origin;
    this.code = code;
  }
}

export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof DocpipeError ? error.exitCode : EXIT.failed;
}
