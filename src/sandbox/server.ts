/**
 * The sandbox: a local HTTP server that behaves like the Mintlify API (DESIGN §6), for
 * tests, the offline demo and the benchmark. It listens on loopback only, records every
 * request, and can be told to misbehave through faults.
 */
import { UsageError } from '../core/errors.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { JobStore, type SandboxJob } from './agent-jobs.js';
import { AnalyticsData } from './analytics-data.js';
import { DEFAULT_ENGAGEMENT, type EngagementShape } from './engagement.js';
import { handleApiRequest, isDriftable, windowDaysOf } from './api-routes.js';
import { DEFAULT_SLOW_MS, FaultQueue, type FaultSpec } from './faults.js';
import { RateLimits, type RateLimitOptions } from './rate-limits.js';
import {
  errorResponse,
  faultResponse,
  malformedResponse,
  patchedResponse,
  serverErrorMessage,
  type SandboxResponse,
} from './sandbox-response.js';

export { parseFaultSpec } from './faults.js';
export type { DropPhase, FaultKind, FaultSpec } from './faults.js';
export type { SandboxJob } from './agent-jobs.js';

export const SANDBOX_API_KEY = 'mint_sandbox_local_key';

export interface SandboxOptions {
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** Port; 0 picks a free one. @default 0 */
  port?: number;
  /** The only key accepted as `Authorization: Bearer <key>`. @default SANDBOX_API_KEY */
  apiKey?: string;
  /** Seed of the simulated data; with the project id it decides every count. @default 42 */
  seed?: number;
  /** Milliseconds since the epoch; drives "today" (partial and late data) and timestamps. @default Date.now */
  now?: () => number;
  site?: {
    /** Pages per project. @default 300 */
    paths?: number;
    /** Floor of a page's daily visitors; 0 lets the long tail have empty days. @default 0 */
    minDailyVisitors?: number;
  };
  /** Feedback, searches and assistant traffic a day (see ./engagement.ts). @default DEFAULT_ENGAGEMENT */
  engagement?: Partial<EngagementShape>;
  jobs?: {
    /** GETs of a job before it shows its outcome. @default 2 */
    pollsToFinish?: number;
  };
  /** Faults active from the start, in order. @default [] */
  faults?: FaultSpec[];
  /**
   * Enforce the API's documented rate limits (100 analytics requests an hour, 100 job
   * creations and messages an hour per project), answering 429 with Retry-After beyond them.
   * `docpipe sandbox` turns them on unless `--no-rate-limit`; tests, the demo and the
   * benchmark leave them off. @default false
   */
  rateLimits?: boolean | RateLimitOptions;
  /**
   * Keep every request in `requests` (tests and the demo read them). `docpipe sandbox` does
   * not: a server that runs for hours grew by about 1.7 KB a request (measured: 294 MB after
   * 13,000 requests, 358 MB after 52,000). @default true
   */
  recordRequests?: boolean;
}

export interface RequestRecord {
  method: string;
  /** The URL path without the query string. */
  path: string;
  query: Record<string, string>;
  /** 0 when the socket was dropped (or the sandbox closed first). */
  status: number;
  /** `now()` when the request arrived. */
  at: number;
}

export interface Sandbox {
  /** e.g. http://127.0.0.1:54321 */
  readonly url: string;
  readonly port: number;
  readonly apiKey: string;
  /** Every request received, in arrival order (none when `recordRequests` is false). */
  readonly requests: RequestRecord[];
  addFault(fault: FaultSpec): void;
  clearFaults(): void;
  /** Ends every pending 'slow' delay now: those answers go out (a test's "the slow request may go on"). */
  releaseDelays(): void;
  /** Every job created, in creation order. */
  jobs(): SandboxJob[];
  /** Stops listening and closes every socket, keep-alive ones included. */
  close(): Promise<void>;
}

interface ResolvedOptions {
  host: string;
  port: number;
  apiKey: string;
  seed: number;
  now: () => number;
  paths: number;
  minDailyVisitors: number;
  pollsToFinish: number;
}

const MAX_BODY_BYTES = 1_000_000;

function resolveOptions(options: SandboxOptions): ResolvedOptions {
  const resolved: ResolvedOptions = {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    apiKey: options.apiKey ?? SANDBOX_API_KEY,
    seed: options.seed ?? 42,
    now: options.now ?? Date.now,
    paths: options.site?.paths ?? 300,
    minDailyVisitors: options.site?.minDailyVisitors ?? 0,
    pollsToFinish: options.jobs?.pollsToFinish ?? 2,
  };
  // Bad options are bad usage (exit 2), named with the value given.
  const check = (ok: boolean, name: string, value: unknown, expected: string): void => {
    if (!ok) throw new UsageError(`invalid sandbox ${name} '${String(value)}': expected ${expected}`);
  };
  check(Number.isInteger(resolved.port) && resolved.port >= 0 && resolved.port <= 65_535, 'port', resolved.port, 'a whole number 0..65535');
  check(Number.isInteger(resolved.paths) && resolved.paths >= 1, 'paths', resolved.paths, 'a whole number >= 1');
  check(Number.isInteger(resolved.minDailyVisitors) && resolved.minDailyVisitors >= 0, 'min-daily-visitors', resolved.minDailyVisitors, 'a whole number >= 0');
  check(Number.isInteger(resolved.pollsToFinish) && resolved.pollsToFinish >= 0, 'polls-to-finish', resolved.pollsToFinish, 'a whole number >= 0');
  check(Number.isFinite(resolved.seed), 'seed', resolved.seed, 'a number');
  return resolved;
}

/** Reads a request body as text; undefined when it is too large. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const config = resolveOptions(options);
  const analytics = new AnalyticsData(
    config.seed,
    { paths: config.paths, minDailyVisitors: config.minDailyVisitors },
    { ...DEFAULT_ENGAGEMENT, ...options.engagement },
  );
  const jobStore = new JobStore({ pollsToFinish: config.pollsToFinish, now: config.now });
  const limits = options.rateLimits ? new RateLimits(options.rateLimits === true ? {} : options.rateLimits) : undefined;
  const faults = new FaultQueue();
  for (const fault of options.faults ?? []) faults.add(fault);
  const requests: RequestRecord[] = [];
  const sockets = new Set<Socket>();
  // Pending 'slow' delays: closing the sandbox ends them at once.
  const delays = new Map<NodeJS.Timeout, () => void>();
  let closing = false;

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        delays.delete(timer);
        resolve();
      }, ms);
      delays.set(timer, resolve);
    });

  const send = (res: ServerResponse, record: RequestRecord, response: SandboxResponse): void => {
    if (res.destroyed || res.writableEnded) return;
    record.status = response.status;
    res.writeHead(response.status, {
      ...response.headers,
      'content-length': Buffer.byteLength(response.body),
    });
    res.end(response.body);
  };

  const drop = (req: IncomingMessage, record: RequestRecord): void => {
    record.status = 0;
    req.socket.destroy();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const record: RequestRecord = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      at: config.now(),
    };
    if (options.recordRequests !== false) requests.push(record);
    try {
      await respond(req, res, url, record);
    } catch {
      if (!res.headersSent) send(res, record, errorResponse(500, 'Internal server error'));
      else res.destroy();
    }
  };

  const respond = async (req: IncomingMessage, res: ServerResponse, url: URL, record: RequestRecord): Promise<void> => {
    const method = record.method;
    const fault = faults.take({
      method,
      path: url.pathname,
      driftable: isDriftable(method, url.pathname, url.searchParams),
      days: windowDaysOf(url.searchParams),
    });
    switch (fault?.kind) {
      case 'drop':
        if ((fault.dropPhase ?? 'before-handling') === 'before-handling') return drop(req, record);
        break;
      case 'rate-limit':
        return send(res, record, faultResponse(fault.status ?? 429, 'Rate limit exceeded', fault));
      case 'server-error': {
        const status = fault.status ?? 500;
        return send(res, record, faultResponse(status, serverErrorMessage(status), fault));
      }
      case 'slow':
        await sleep(fault.delayMs ?? DEFAULT_SLOW_MS);
        if (closing) return drop(req, record);
        break;
      default:
        break;
    }

    const body = method === 'POST' ? await readBody(req) : '';
    if (body === undefined) return send(res, record, errorResponse(413, 'Request body too large'));
    const result = handleApiRequest(
      { method, pathname: url.pathname, query: url.searchParams, authorization: req.headers.authorization, body },
      { apiKey: config.apiKey, now: config.now, analytics, jobs: jobStore, ...(limits ? { limits } : {}) },
      { drift: fault?.kind === 'drift', ignoreOffset: fault?.kind === 'ignore-offset', shuffle: fault?.kind === 'shuffle' },
    );
    // A drift that could not change this page, or an ignored offset on an endpoint that does
    // not page, does not use up the fault.
    if ((fault?.kind === 'drift' || fault?.kind === 'ignore-offset' || fault?.kind === 'shuffle') && !result.faultApplied) faults.refund(fault);
    if (fault?.kind === 'drop') return drop(req, record);
    if (fault?.kind === 'malformed') return send(res, record, malformedResponse(result.response));
    if (fault?.kind === 'body') return send(res, record, { status: fault.status ?? 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: fault.body ?? '' });
    if (fault?.kind === 'patch') return send(res, record, patchedResponse(result.response, fault.patch ?? {}));
    return send(res, record, result.response);
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = config.host.includes(':') ? `[${config.host}]` : config.host;

  return {
    url: `http://${hostInUrl}:${port}`,
    port,
    apiKey: config.apiKey,
    requests,
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    releaseDelays: () => {
      for (const [timer, resolve] of delays) {
        clearTimeout(timer);
        delays.delete(timer);
        resolve();
      }
    },
    jobs: () => jobStore.list(),
    close: async () => {
      if (closing) return;
      closing = true;
      for (const [timer, wake] of delays) {
        clearTimeout(timer);
        wake();
      }
      delays.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
