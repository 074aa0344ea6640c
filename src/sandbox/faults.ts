/**
 * Switchable faults: what they are, how a CLI flag spells one, and which one (if any) a
 * request meets. Faults are tried in the order they were added; the first whose `match`
 * applies, that has let its `skip` requests through and still has `times` left, fires.
 */
import { UsageError } from '../core/errors.js';

export const FAULT_KINDS = ['rate-limit', 'server-error', 'drop', 'slow', 'malformed', 'drift', 'ignore-offset', 'shuffle', 'body', 'patch'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const DROP_PHASES = ['before-handling', 'after-handling'] as const;
export type DropPhase = (typeof DROP_PHASES)[number];

export interface FaultSpec {
  kind: FaultKind;
  /** Which requests it applies to; every request when absent. */
  match?: {
    method?: 'GET' | 'POST';
    /** A substring of the URL path, e.g. '/visitors' or '/job'. */
    path?: string;
    /** The length in days of the window asked for (`dateTo` - `dateFrom`): 7 for a week's. */
    days?: number;
  };
  /** How many matching requests it affects (Infinity allowed). @default 1 */
  times?: number;
  /** Matching requests let through unaffected first. @default 0 */
  skip?: number;
  /** Response status. @default 429 for rate-limit, 500 for server-error */
  status?: number;
  /** Raw Retry-After header value ("2" or an HTTP date); no header when absent. */
  retryAfter?: string;
  /** Error body as text/plain instead of JSON. @default false */
  plainText?: boolean;
  /** 'slow': delay before answering normally. @default 1000 */
  delayMs?: number;
  /**
   * 'drop': when to destroy the socket. 'after-handling' performs the request's side
   * effect first (the job IS created), like a reset after the POST reached the server.
   * @default 'before-handling'
   */
  dropPhase?: DropPhase;
  /** 'body': the response body sent instead of the real one (status `status`, default 200), after handling the request. */
  body?: string;
  /**
   * 'patch': fields merged into a successful JSON object body after handling the request
   * (`{"status": "cancelled"}`, `{"prLink": null}`), for answers the documentation allows but
   * the simulation does not give by itself.
   */
  patch?: Record<string, unknown>;
}

export const DEFAULT_SLOW_MS = 1000;

/** What the server knows about a request when it picks a fault. */
export interface FaultContext {
  method: string;
  path: string;
  /** Drift only changes analytics pages past the first. */
  driftable: boolean;
  /** The length in days of the window asked for, if the request names one. */
  days?: number | undefined;
}

interface FaultState {
  readonly spec: FaultSpec;
  skipped: number;
  fired: number;
}

export class FaultQueue {
  private faults: FaultState[] = [];

  add(spec: FaultSpec): void {
    validateFault(spec, JSON.stringify(spec));
    this.faults.push({ spec: { ...spec, ...(spec.match ? { match: { ...spec.match } } : {}) }, skipped: 0, fired: 0 });
  }

  clear(): void {
    this.faults = [];
  }

  /** The fault this request meets, counted as fired; undefined when none. */
  take(context: FaultContext): FaultSpec | undefined {
    for (const fault of this.faults) {
      const { spec } = fault;
      if (fault.fired >= (spec.times ?? 1)) continue;
      if (!matches(spec, context)) continue;
      if (fault.skipped < (spec.skip ?? 0)) {
        fault.skipped++;
        continue;
      }
      fault.fired++;
      return spec;
    }
    return undefined;
  }

  /** Gives back a fault taken for a request it turned out not to affect. */
  refund(spec: FaultSpec): void {
    const fault = this.faults.find((f) => f.spec === spec);
    if (fault && fault.fired > 0) fault.fired--;
  }
}

function matches(spec: FaultSpec, context: FaultContext): boolean {
  if (spec.kind === 'drift' && !context.driftable) return false;
  if (spec.match?.method !== undefined && spec.match.method !== context.method) return false;
  if (spec.match?.path !== undefined && !context.path.includes(spec.match.path)) return false;
  if (spec.match?.days !== undefined && spec.match.days !== context.days) return false;
  return true;
}

function validateFault(spec: FaultSpec, text: string): void {
  const bad = (why: string): UsageError => new UsageError(`invalid fault "${text}": ${why}`);
  if (!(FAULT_KINDS as readonly string[]).includes(spec.kind)) {
    throw bad(`unknown kind "${String(spec.kind)}" (expected one of ${FAULT_KINDS.join(', ')})`);
  }
  const times = spec.times;
  if (times !== undefined && times !== Infinity && !(Number.isInteger(times) && times >= 0)) {
    throw bad('times must be an integer >= 0 or Infinity');
  }
  if (spec.skip !== undefined && !(Number.isInteger(spec.skip) && spec.skip >= 0)) {
    throw bad('skip must be an integer >= 0');
  }
  if (spec.status !== undefined && !(Number.isInteger(spec.status) && spec.status >= 100 && spec.status <= 599)) {
    throw bad('status must be an HTTP status from 100 to 599');
  }
  if (spec.delayMs !== undefined && !(Number.isFinite(spec.delayMs) && spec.delayMs >= 0)) {
    throw bad('delayMs must be a number >= 0');
  }
  if (spec.dropPhase !== undefined && !(DROP_PHASES as readonly string[]).includes(spec.dropPhase)) {
    throw bad(`dropPhase must be one of ${DROP_PHASES.join(', ')}`);
  }
  if (spec.kind === 'body' && typeof spec.body !== 'string') throw bad('a body fault needs body (the text to send)');
  if (spec.kind === 'patch' && (spec.patch === null || typeof spec.patch !== 'object' || Array.isArray(spec.patch))) {
    throw bad('a patch fault needs patch (an object of fields)');
  }
  if (spec.match?.method !== undefined && spec.match.method !== 'GET' && spec.match.method !== 'POST') {
    throw bad('method must be GET or POST');
  }
}

/** Splits at ':' only where a `key=` or a bare flag follows, so HTTP dates keep their colons. */
const FIELD_SEPARATOR = /:(?=[A-Za-z][A-Za-z-]*(?:=|:|$))/;

/**
 * Reads a fault from a CLI flag: the kind, then `key=value` fields separated by ':', e.g.
 * `rate-limit:times=3:retryAfter=2:path=/visitors` or `drop:method=POST:dropPhase=after-handling`.
 * `plainText` may stand alone; `times` accepts `Infinity` (or `inf`).
 */
export function parseFaultSpec(text: string): FaultSpec {
  const bad = (why: string): UsageError => new UsageError(`invalid fault "${text}": ${why}`);
  // `body=` and `patch=` take the rest of the text, colons and all (a body is any text), so
  // they come last.
  const tail = /:(body|patch)=/.exec(text);
  const head = tail ? text.slice(0, tail.index) : text;
  const [kind = '', ...fields] = head.trim().split(FIELD_SEPARATOR);
  if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw bad(`unknown kind "${kind}" (expected one of ${FAULT_KINDS.join(', ')})`);
  }
  const spec: FaultSpec = { kind: kind as FaultKind };
  const match: NonNullable<FaultSpec['match']> = {};
  const integer = (key: string, value: string): number => {
    if (!/^\d+$/.test(value)) throw bad(`${key} must be a whole number, got "${value}"`);
    return Number(value);
  };
  for (const field of fields) {
    const eq = field.indexOf('=');
    const key = eq === -1 ? field : field.slice(0, eq);
    const value = eq === -1 ? undefined : field.slice(eq + 1);
    if (value === undefined && key !== 'plainText') throw bad(`"${key}" needs a value (${key}=...)`);
    const v = value ?? '';
    switch (key) {
      case 'method': {
        const method = v.toUpperCase();
        if (method !== 'GET' && method !== 'POST') throw bad(`method must be GET or POST, got "${v}"`);
        match.method = method;
        break;
      }
      case 'path':
        if (v === '') throw bad('path must not be empty');
        match.path = v;
        break;
      case 'days':
        match.days = integer(key, v);
        break;
      case 'times':
        spec.times = /^(inf|infinity)$/i.test(v) ? Infinity : integer(key, v);
        break;
      case 'skip':
        spec.skip = integer(key, v);
        break;
      case 'status':
        spec.status = integer(key, v);
        break;
      case 'retryAfter':
        if (v === '') throw bad('retryAfter must not be empty');
        spec.retryAfter = v;
        break;
      case 'plainText':
        if (value !== undefined && value !== 'true' && value !== 'false') {
          throw bad(`plainText must be true or false, got "${value}"`);
        }
        spec.plainText = value !== 'false';
        break;
      case 'delayMs':
        spec.delayMs = integer(key, v);
        break;
      case 'dropPhase':
        if (!(DROP_PHASES as readonly string[]).includes(v)) {
          throw bad(`dropPhase must be one of ${DROP_PHASES.join(', ')}, got "${v}"`);
        }
        spec.dropPhase = v as DropPhase;
        break;
      default:
        throw bad(
          `unknown field "${key}" (expected method, path, days, times, skip, status, retryAfter, plainText, delayMs, dropPhase, and last body or patch)`,
        );
    }
  }
  if (tail) {
    const value = text.slice(tail.index + tail[0].length);
    if (tail[1] === 'body') spec.body = value;
    else {
      let patch: unknown;
      try {
        patch = JSON.parse(value);
      } catch {
        throw bad(`patch must be a JSON object, got '${value}' (patch= takes the rest of the fault: put it last)`);
      }
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw bad(`patch must be a JSON object, got '${value}'`);
      spec.patch = patch as Record<string, unknown>;
    }
  }
  if (match.method !== undefined || match.path !== undefined || match.days !== undefined) spec.match = match;
  validateFault(spec, text);
  return spec;
}
