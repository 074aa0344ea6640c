/**
 * docpipe as a library, imported by its package name (self-reference through `exports`, so
 * this runs the built dist/ a user's code would get), against a real sandbox over HTTP.
 */
import { getEventListeners } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createLogger,
  DatabasePathError,
  exportAnalytics,
  InterruptedError,
  ManualClock,
  openDatabase,
  promptsFromQuery,
  SANDBOX_API_KEY,
  sendMessages,
  startSandbox,
  submitJobs,
  syncPipeline,
  UsageError,
  type AnalyticsResult,
  type Sandbox,
  type WindowEvent,
} from 'docpipe';
import { fileHolder, holdFile } from '../cli/harness.js';

const NOW = '2026-03-10T06:00:00Z';

/** Runs `work` with process stdout/stderr writes counted (and kept from the terminal). */
async function countWrites<T>(work: () => Promise<T>): Promise<{ value: T; writes: string[] }> {
  const writes: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const capture = (chunk: unknown): boolean => {
    writes.push(String(chunk));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  try {
    return { value: await work(), writes };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

describe("import { … } from 'docpipe'", () => {
  let sandbox: Sandbox;
  let clock: ManualClock;
  let dir: string;
  let db: string;
  beforeEach(async () => {
    clock = new ManualClock(NOW);
    // 200 pages: one request a window.
    sandbox = await startSandbox({ now: () => clock.now(), site: { paths: 200 }, jobs: { pollsToFinish: 2 } });
    dir = mkdtempSync(join(tmpdir(), 'docpipe-lib-'));
    db = join(dir, 'lib.duckdb');
  });
  afterEach(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const common = () => ({ apiKey: SANDBOX_API_KEY, baseUrl: sandbox.url, db, clock });

  it('exportAnalytics loads a range, returns the summary, prints nothing, and a second run fetches nothing', async () => {
    const { value: run, writes } = await countWrites(() =>
      exportAnalytics({ ...common(), project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-08' }),
    );
    expect(writes).toEqual([]);
    expect(run).toMatchObject({ command: 'export visitors', windowsPlanned: 7, windowsLoaded: 7, windowsFailed: 0, exitCode: 0, stopped: null });
    expect(run.requests).toBe(sandbox.requests.length);
    expect(run.rows).toBeGreaterThan(0);

    const database = await openDatabase(db, { readOnly: true });
    try {
      const [counts] = await database.all<{ rows: bigint; windows: bigint }>(
        `SELECT (SELECT count(*) FROM page_visitors WHERE project_id = 'docs') AS rows,
                (SELECT count(*) FROM visitor_totals WHERE project_id = 'docs') AS windows`,
      );
      expect(counts).toEqual({ rows: BigInt(run.rows), windows: 7n });
      const runs = await database.all<{ status: string; exit_code: number }>('SELECT status, exit_code FROM runs WHERE run_id = $id', { id: run.runId });
      expect(runs).toEqual([{ status: 'ok', exit_code: 0 }]);
    } finally {
      await database.close();
    }

    const again = await exportAnalytics({ ...common(), project: ['docs'], metric: 'visitors', from: '2026-03-01', to: '2026-03-08' });
    expect(again).toMatchObject({ windowsSkipped: 7, windowsLoaded: 0, requests: 0, exitCode: 0 });
  });

  it('reports a spent budget in the result (exit code 75), and logs only to the logger it is given', async () => {
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', write: (line) => void lines.push(line) });
    const run = await exportAnalytics({ ...common(), logger, project: 'docs', metric: 'views', from: '2026-03-01', to: '2026-03-08', maxRequests: 3 });
    expect(run).toMatchObject({ exitCode: 75, stopped: 'budget', requests: 3, windowsLoaded: 3, windowsLeft: 4 });
    expect(sandbox.requests).toHaveLength(3);
    // An open window (today) is a warning, through the logger.
    const open = await exportAnalytics({ ...common(), logger, project: 'docs', metric: 'views', from: '2026-03-09', to: '2026-03-11' });
    expect(open.exitCode).toBe(0);
    expect(lines.map((l) => (JSON.parse(l) as { event: string }).event)).toContain('window not closed yet');
    expect(lines.join('')).not.toContain(SANDBOX_API_KEY);
  });

  it('a key the API rejects is named as the caller gave it: apiKey', async () => {
    const run = await exportAnalytics({ ...common(), apiKey: 'mint_wrong', project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-02' });
    expect(run.exitCode).toBe(1);
    expect(run.stopMessage).toMatch(/^the API rejected the key \(HTTP 401\): check apiKey$/);
  });

  it('an aborted signal stops the run cleanly: exit code 130 in the result, nothing fetched', async () => {
    const controller = new AbortController();
    controller.abort();
    const run = await exportAnalytics({ ...common(), signal: controller.signal, project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-08' });
    expect(run).toMatchObject({ exitCode: 130, stopped: 'interrupted', windowsLoaded: 0, windowsLeft: 7, requests: 0 });
    expect(sandbox.requests).toEqual([]);
  });

  it('a stop while the threads phase waits for a held file ends with the summary (130), and the next run loads the threads it fetched', async () => {
    // Each thread answers slowly: the stop comes while the phase is fetching.
    sandbox.addFault({ kind: 'slow', match: { path: '/threads/' }, delayMs: 300, times: Infinity });
    const controller = new AbortController();
    const options = { ...common(), lockTimeoutMs: 60_000, project: 'docs', metric: 'assistant', from: '2026-03-01', to: '2026-03-02', threads: true } as const;
    const threadRequests = (): number => sandbox.requests.filter((r) => r.path.includes('/threads/')).length;
    const run = exportAnalytics({ ...options, signal: controller.signal });
    while (threadRequests() < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    // The file is held when the phase's last load comes, and the run is stopped while it waits.
    const held = await holdFile(db);
    let result: Awaited<typeof run>;
    try {
      controller.abort();
      result = await run;
    } finally {
      await held.release();
    }
    expect(result).toMatchObject({ stopped: 'interrupted', exitCode: 130 });
    const fetched = threadRequests();
    sandbox.clearFaults();
    const next = await exportAnalytics(options);
    expect(next.exitCode, next.stopMessage ?? '').toBe(0);
    // Every thread received is loaded from the spool; the one in flight at the stop, if any, is fetched again.
    expect(next.threads?.threadsFromSpool).toBeGreaterThanOrEqual(Math.max(1, fetched - 1));
    const database = await openDatabase(db, { readOnly: true });
    try {
      // The stopped run's end was kept in the spool and recorded by the next run: not left 'running'.
      expect(await database.all('SELECT status, exit_code FROM runs WHERE run_id = $id', { id: result.runId })).toEqual([{ status: 'interrupted', exit_code: 130 }]);
    } finally {
      await database.close();
    }
  });

  /** An export of two windows that does not wait for a held file, another process taking the file at its plan (`holder`). */
  const exportWhileTaken = async (holder: { take: () => Promise<void> }, onWindow?: (event: WindowEvent) => void): Promise<AnalyticsResult> => {
    let taking: Promise<void> | undefined;
    const run = await exportAnalytics({
      ...common(),
      lockTimeoutMs: 0,
      project: 'docs',
      metric: 'visitors',
      from: '2026-03-01',
      to: '2026-03-03',
      onPlan: () => void (taking = holder.take()),
      ...(onWindow ? { onWindow } : {}),
    });
    await taking;
    return run;
  };

  it('a file held when the fetching is over (past the lock wait) stops the run with its walks in the spool: nothing is loaded after the summary', async () => {
    // Taken from the start: the database exists, and its record of the run is written.
    await exportAnalytics({ ...common(), project: 'docs', metric: 'visitors', from: '2026-02-20', to: '2026-02-21' });
    const holder = await fileHolder(db);
    try {
      // The first answer comes late, so the file is held (from the plan on) before the walks end.
      sandbox.addFault({ kind: 'slow', match: { path: '/visitors' }, delayMs: 1_500, times: 1 });
      const loadedAfter: string[] = [];
      let ended = false;
      const run = await exportWhileTaken(holder, (event) => void (ended && loadedAfter.push(`${event.kind} ${event.window.start}`)));
      ended = true;
      expect(run).toMatchObject({ stopped: 'locked', exitCode: 75, windowsLoaded: 0, windowsLeft: 2 });
      await holder.release();
      // Past the loader's wait for a fuller batch (1 s): nothing loads in the background.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(loadedAfter).toEqual([]);
    } finally {
      await holder.release();
    }
    const requests = sandbox.requests.length;
    const next = await exportAnalytics({ ...common(), project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-03' });
    expect(next).toMatchObject({ exitCode: 0, windowsLoaded: 2, windowsFromSpool: 2 });
    expect(sandbox.requests).toHaveLength(requests);
  });

  it('a key refused mid-run stops the run with exit 1, even when the file is then held past the lock wait', async () => {
    await exportAnalytics({ ...common(), project: 'docs', metric: 'visitors', from: '2026-02-20', to: '2026-02-21' });
    const holder = await fileHolder(db);
    try {
      // The second window's request is refused (401); the first answer comes late, so the file is held by then.
      sandbox.addFault({ kind: 'server-error', status: 401, match: { path: '/visitors' }, skip: 1, times: 1 });
      sandbox.addFault({ kind: 'slow', match: { path: '/visitors' }, delayMs: 1_500, times: 1 });
      const run = await exportWhileTaken(holder);
      expect(run).toMatchObject({ stopped: 'fatal', exitCode: 1, windowsLoaded: 0 });
      expect(run.stopMessage).toMatch(/the API rejected the key \(HTTP 401\)/);
    } finally {
      await holder.release();
    }
  });

  it('rejects bad options with a UsageError that names the value, before any request', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ from: '2026-02-30' }, /2026-02-30/],
      [{ window: 'fortnight' }, /invalid window 'fortnight'/],
      [{ metric: 'clicks' }, /invalid metric 'clicks'/],
      [{ lookbackDays: -1 }, /invalid lookbackDays '-1'/],
      [{ lookbackDays: 99999999 }, /^invalid lookbackDays '99999999': expected a whole number from 0 to 366$/],
      [{ apiKey: '' }, /no API key/],
      [{ project: [] }, /no project/],
      [{ requestsPerHour: 0 }, /invalid requestsPerHour '0'/],
      [{ apiKey: 'mint_abc def' }, /the API key contains a character that cannot be sent in an HTTP header \(U\+0020 at position 9\)/],
      [{ project: '..' }, /invalid project '\.\.': it is a relative path/],
      [{ project: ['docs', 'a/b'] }, /invalid project 'a\/b': it contains a slash/],
      [{ project: 42 }, /invalid project '42': expected a project id or a list of them/],
      [{ project: undefined }, /invalid project 'undefined'/],
      [{ maxWaitMs: 'abc' }, /invalid maxWaitMs 'abc'/],
      [{ signal: { aborted: false } }, /invalid signal '\[object Object\]': expected an AbortSignal/],
      [{ onWindow: 'x' }, /invalid onWindow 'x': expected a function/],
      [{ logger: 'x' }, /invalid logger 'x': expected a Logger \(an object with debug, info, warn and error functions\)/],
      [{ logger: {} }, /invalid logger '\[object Object\]': expected a Logger/],
      // A yes/no option is true or false: 'no' is not yes.
      [{ refresh: 'no' }, /invalid refresh 'no': expected true or false/],
      [{ threads: 'false', metric: 'assistant' }, /invalid threads 'false': expected true or false/],
      [{ project: [null] }, /invalid project 'null': expected a project id \(text\)/],
      [{ lockTimeoutMs: 'abc' }, /invalid lockTimeoutMs 'abc': expected milliseconds >= 0/],
      [{ http: { timeoutMs: 'y' } }, /invalid http\.timeoutMs 'y': expected a number >= 0/],
      // An option it does not take is refused, not ignored (the run would go on with the default).
      [{ grain: 'month' }, /^unknown option 'grain' of exportAnalytics: the options are apiKey, baseUrl, .*, window, refresh, lookbackDays, threads$/],
      [{ windw: 'week' }, /^unknown option 'windw' of exportAnalytics: did you mean 'window'\?$/],
      [{ http: { timeout: 5 } }, /^unknown option 'http\.timeout': did you mean 'http\.timeoutMs'\?$/],
      // Each short write would open a new, empty in-memory database: nothing kept.
      [{ db: ':memory:' }, /^invalid db ':memory:': an in-memory database keeps nothing after the run/],
    ];
    for (const [override, message] of cases) {
      const options = { ...common(), project: 'docs', metric: 'visitors' as const, from: '2026-03-01', to: '2026-03-08', ...override };
      const error: unknown = await exportAnalytics(options as Parameters<typeof exportAnalytics>[0]).catch((e: unknown) => e);
      expect(error, JSON.stringify(override)).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
    }
    // The same for job batches and messages: refused before the database is made or a run recorded.
    const jobCases: [Record<string, unknown>, RegExp][] = [
      [{ apiKey: 'mint_abc\n' + 'x' }, /U\+000A at position 9/],
      [{ project: '.' }, /invalid project '\.': it is a relative path/],
      [{ prompts: [{ prompt: 'Fix it', id: ' ' }] }, /prompts\[0\]: "id" is empty/],
      [{ prompts: undefined }, /invalid prompts: expected a list/],
      [{ prompts: { prompt: 'Fix it' } }, /invalid prompts: expected a list/],
      [{ onEvent: 'x' }, /invalid onEvent 'x': expected a function/],
      [{ signal: { aborted: false } }, /invalid signal/],
      [{ resubmitUnknown: 'no' }, /invalid resubmitUnknown 'no': expected true or false/],
      [{ resubmitUnknow: true }, /^unknown option 'resubmitUnknow' of submitJobs: did you mean 'resubmitUnknown'\?$/],
      [{ db: ':memory:' }, /^invalid db ':memory:'/],
    ];
    for (const [override, message] of jobCases) {
      const options = { ...common(), project: 'docs', prompts: [{ prompt: 'Fix it' }], ...override };
      const error: unknown = await submitJobs(options as Parameters<typeof submitJobs>[0]).catch((e: unknown) => e);
      expect(error, JSON.stringify(override)).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
    }
    const message = await sendMessages({ ...common(), project: '..', messages: [{ jobId: 'j', prompt: 'hi' }] }).catch((e: unknown) => e);
    expect((message as Error).message).toMatch(/invalid project '\.\.'/);
    const inMemory = await sendMessages({ ...common(), db: ':memory:', project: 'docs', messages: [{ jobId: 'j', prompt: 'hi' }] }).catch((e: unknown) => e);
    expect((inMemory as Error).message).toMatch(/^invalid db ':memory:'/);
    const numeric = await sendMessages({ ...common(), project: 'docs', messages: [{ jobId: 17 as unknown as string, prompt: 'hi' }] }).catch((e: unknown) => e);
    expect(numeric).toBeInstanceOf(UsageError);
    expect((numeric as Error).message).toBe("messages[0]: invalid jobId '17': expected a string");
    const noTemplate = await promptsFromQuery({ db, sql: 'SELECT 1 AS x' } as unknown as Parameters<typeof promptsFromQuery>[0]).catch((e: unknown) => e);
    expect(noTemplate).toBeInstanceOf(UsageError);
    expect((noTemplate as Error).message).toBe("invalid template 'undefined': expected text with {column} fields");
    const numericSql = await promptsFromQuery({ db, sql: 5, template: '{x}' } as unknown as Parameters<typeof promptsFromQuery>[0]).catch((e: unknown) => e);
    expect((numericSql as Error).message).toBe("invalid sql '5': expected the text of a query");
    const blankId = await sendMessages({ ...common(), project: 'docs', messages: [{ jobId: 'j', prompt: 'hi', id: '  ' }] }).catch((e: unknown) => e);
    expect((blankId as Error).message).toBe('messages[0]: empty id');
    for (const bad of [{ resubmitUnknown: 'no' }, { resubmitUnknown: true, resendUnknown: false }]) {
      const refused = await sendMessages({ ...common(), project: 'docs', messages: [{ jobId: 'j', prompt: 'hi' }], ...bad } as Parameters<typeof sendMessages>[0]).catch((e: unknown) => e);
      expect(refused, JSON.stringify(bad)).toBeInstanceOf(UsageError);
    }
    for (const [bad, message] of [
      [{ lockTimeoutMs: 'abc' }, "invalid lockTimeoutMs 'abc': expected milliseconds >= 0"],
      [{ lockTimeoutMs: -5 }, "invalid lockTimeoutMs '-5': expected milliseconds >= 0"],
      [{ project: 5 }, "invalid project '5': expected a project id (text)"],
      [{ sql: '  ' }, "invalid sql '  ': expected the text of a query"],
      [{ signal: 'nope' }, "invalid signal 'nope': expected an AbortSignal (e.g. AbortSignal.timeout(60_000))"],
      [{ onLockWait: 5 }, "invalid onLockWait '5': expected a function"],
    ] as const) {
      const refused = await promptsFromQuery({ db, sql: 'SELECT 1 AS x', template: '{x}', ...bad } as unknown as Parameters<typeof promptsFromQuery>[0]).catch((e: unknown) => e);
      expect(refused, JSON.stringify(bad)).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toBe(message);
    }
    for (const [call, message] of [
      [() => syncPipeline({ ...common(), pipline: 'p.json' } as Parameters<typeof syncPipeline>[0]), "unknown option 'pipline' of syncPipeline: did you mean 'pipeline'?"],
      [() => sendMessages({ ...common(), project: 'docs', messages: [{ jobId: 'j', prompt: 'hi' }], resend: true } as Parameters<typeof sendMessages>[0]),
        "unknown option 'resend' of sendMessages: the options are apiKey, baseUrl, db, lockTimeoutMs, maxRequests, logger, clock, signal, http, pollIntervalMs, timeoutMs, jobsPerHour, project, messages, source, concurrency, resubmitUnknown, resendUnknown, onEvent"],
      [() => promptsFromQuery({ db, sql: 'SELECT 1 AS x', template: '{x}', projectId: 'docs' } as Parameters<typeof promptsFromQuery>[0]), "unknown option 'projectId' of promptsFromQuery: did you mean 'project'?"],
      [() => openDatabase(db, { readonly: true } as Parameters<typeof openDatabase>[1]), "unknown option 'readonly' of openDatabase: did you mean 'readOnly'?"],
      [() => exportAnalytics(null as unknown as Parameters<typeof exportAnalytics>[0]), "invalid options of exportAnalytics 'null': expected an object"],
    ] as const) {
      const refused: unknown = await call().catch((e: unknown) => e);
      expect(refused, message).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toBe(message);
    }
    // An option given as undefined is no option (a spread of optional settings).
    const spread = await openDatabase(join(dir, 'spread.duckdb'), { readonly: undefined } as Parameters<typeof openDatabase>[1]);
    await spread.close();
    // Infinity is a wait as long as it takes (a read-only open of a file nobody holds: at once).
    const forever = await openDatabase(join(dir, 'forever.duckdb'), { lockTimeoutMs: Infinity });
    await forever.close();
    const badWait = await openDatabase(db, { lockTimeoutMs: -5 }).catch((e: unknown) => e);
    expect((badWait as Error).message).toBe("invalid lockTimeoutMs '-5': expected milliseconds >= 0");
    // Each option of openDatabase is checked as the others' are: a yes/no is true or false ('no' is not yes).
    for (const [options, message] of [
      [{ readOnly: 'no' }, "invalid readOnly 'no': expected true or false"],
      [{ threads: Number.NaN }, "invalid threads 'NaN': expected a whole number > 0"],
      [{ threads: 'abc' }, "invalid threads 'abc': expected a whole number > 0"],
      [{ memoryLimit: 5 }, "invalid memoryLimit '5': expected a size such as '512MB' or '2GiB'"],
      [{ memoryLimit: ' ' }, "invalid memoryLimit ' ': expected a size such as '512MB' or '2GiB'"],
      [{ signal: 'x' }, "invalid signal 'x': expected an AbortSignal (e.g. AbortSignal.timeout(60_000))"],
      [{ onLockWait: 5 }, "invalid onLockWait '5': expected a function"],
    ] as const) {
      const error = await openDatabase(join(dir, 'options.duckdb'), options as unknown as Parameters<typeof openDatabase>[1]).catch((e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(message);
    }
    expect(existsSync(join(dir, 'options.duckdb'))).toBe(false);
    for (const memoryLimit of ['256MB', '8G', 'none']) {
      const sized = await openDatabase(join(dir, 'sized.duckdb'), { memoryLimit, threads: 2 });
      await sized.close();
    }
    const badPath = await openDatabase(5 as unknown as string).catch((e: unknown) => e);
    expect(badPath).toBeInstanceOf(UsageError);
    expect((badPath as Error).message).toBe("invalid path '5': expected the path of a DuckDB file");
    // A path that cannot be a database is named; the CLI's --db is not (the caller passed no such option).
    const missing = join(dir, 'missing.duckdb');
    for (const call of [
      () => openDatabase(missing, { readOnly: true }),
      () => promptsFromQuery({ db: missing, sql: 'SELECT 1 AS x', template: '{x}' }),
      () => openDatabase(dir),
    ]) {
      const refused: unknown = await call().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DatabasePathError);
      expect((refused as Error).message).toMatch(/^database '.*' (does not exist|is not a file)$/);
    }
    // A prompt's key with no ledger yet: refused, and no empty database left behind.
    const byKey = await sendMessages({ ...common(), project: 'docs', messages: [{ promptKey: 'fix-1', prompt: 'hi' }] }).catch((e: unknown) => e);
    expect(byKey).toBeInstanceOf(UsageError);
    expect((byKey as Error).message).toBe("messages:1: no job in the ledger with prompt key 'fix-1'");
    expect(sandbox.requests).toEqual([]);
    expect(existsSync(db)).toBe(false);
  });

  it('an error never carries the API key, whichever option it was passed as by mistake', async () => {
    const key = 'mint_SECRET_xyz123';
    for (const override of [{ baseUrl: key }, { project: `${key}/x` }, { from: key }, { metric: key }, { window: key }]) {
      const error = await exportAnalytics({ ...common(), apiKey: key, project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-02', ...override } as Parameters<typeof exportAnalytics>[0]).catch((e: unknown) => e);
      expect(error, JSON.stringify(override)).toBeInstanceOf(UsageError);
      const texts: string[] = [];
      for (let e: unknown = error; e instanceof Error; e = e.cause) texts.push(e.message, e.stack ?? '', ...Object.values(e).filter((v): v is string => typeof v === 'string'));
      expect(texts.join('\n'), JSON.stringify(override)).not.toContain('SECRET');
    }
    const url = await exportAnalytics({ ...common(), apiKey: key, baseUrl: key, project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-02' }).catch((e: unknown) => e);
    expect((url as Error).message).toBe("invalid baseUrl '[a key?]': not a URL");
    // A key too short to be one is not blanked out of the message (which it would mangle).
    const short = await exportAnalytics({ ...common(), apiKey: 'e', project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-13-02' }).catch((e: unknown) => e);
    expect((short as Error).message).toMatch(/^invalid to '2026-13-02': expected/);
  });

  it('names its options as a caller passes them (from, to, baseUrl), not as the CLI does', async () => {
    const refused = async (options: Partial<Parameters<typeof exportAnalytics>[0]>): Promise<string> => {
      const error = await exportAnalytics({ ...common(), project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-02', ...options }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    };
    expect(await refused({ from: '2026-03-02' })).toBe('from 2026-03-02 must be before to 2026-03-02 (to is exclusive)');
    expect(await refused({ from: undefined as unknown as string })).toBe("invalid from 'undefined': expected a calendar date YYYY-MM-DD");
    expect(await refused({ from: '2026-03-04', to: '2026-03-16', window: 'week' })).toMatch(/^from 2026-03-04 is not on a week boundary/);
    expect(await refused({ to: '2026-03-13' })).toMatch(/^to 2026-03-13 is past today \(2026-03-10, UTC\)/);
    expect(await refused({ to: '2026-03-13', window: 'range' })).toMatch(/; use to 2026-03-11$/);
    expect(await refused({ baseUrl: 'ftp://example.com' })).toBe("invalid baseUrl 'ftp://example.com': expected an http(s) URL");
    // A host that cannot be reached: the run's summary says which option to check.
    const closed = await exportAnalytics({ ...common(), baseUrl: 'http://127.0.0.1:9', http: { retries: 0 }, project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-02' });
    expect(closed.stopMessage).toMatch(/^cannot connect to http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\): check baseUrl and the network$/);
    await expect(promptsFromQuery({ db, sql: 'SELECT 1 AS x', template: 'Fix {x' })).rejects.toThrow("template: '{' at character 5 is not closed (write {{ for a literal brace)");
    await expect(promptsFromQuery({ db, sql: 'SELECT 1 AS x', template: 'Fix {y}' })).rejects.toThrow('template field {y} matches no column of the query (columns: x)');
    // Options a caller holds as possibly undefined pass as they are (exactOptionalPropertyTypes).
    const maybe: { signal: AbortSignal | undefined } = { signal: undefined };
    await expect(promptsFromQuery({ db, sql: 'SELECT 1 AS x', template: '{x}', signal: maybe.signal })).resolves.toMatchObject({ prompts: [{ prompt: '1' }] });
    await expect(exportAnalytics({ ...common(), signal: maybe.signal, project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-01' })).rejects.toThrow(UsageError);
  });

  it('a run stopped while it waits for the database another handle holds resolves with its summary: exit code 130, nothing fetched', async () => {
    (await openDatabase(db)).close();
    const reader = await openDatabase(db, { readOnly: true });
    try {
      const run = await exportAnalytics({ ...common(), project: 'docs', metric: 'visitors', from: '2026-03-01', to: '2026-03-03', lockTimeoutMs: 60_000, signal: AbortSignal.timeout(300) });
      expect(run).toMatchObject({ exitCode: 130, stopped: 'interrupted', requests: 0, stopMessage: expect.stringMatching(/^stopped while waiting for database/) });
      const batch = await submitJobs({ ...common(), project: 'docs', prompts: [{ prompt: 'Fix it' }], lockTimeoutMs: 60_000, signal: AbortSignal.timeout(300) });
      expect(batch).toMatchObject({ exitCode: 130, stopped: 'interrupted', submitted: 0, counts: { 'not submitted': 1 } });
      const messages = await sendMessages({ ...common(), project: 'docs', messages: [{ jobId: 'job-1', prompt: 'And the tests' }], lockTimeoutMs: 60_000, signal: AbortSignal.timeout(300) });
      expect(messages).toMatchObject({ exitCode: 130, stopped: 'interrupted', sent: 0, counts: { 'not sent': 1 } });
      // Held past the lock wait: the same summary, stopped on the held file (exit code 75).
      const held = await sendMessages({ ...common(), project: 'docs', messages: [{ jobId: 'job-1', prompt: 'And the tests' }], lockTimeoutMs: 200 });
      expect(held).toMatchObject({ exitCode: 75, stopped: 'locked', sent: 0, stopMessage: expect.stringMatching(/read-only in this process/) });
    } finally {
      await reader.close();
    }
    expect(sandbox.requests).toEqual([]);
  });

  it('a run stopped while a reader holds the file still saves what it fetched once the reader lets go: its windows loaded, its end recorded', async () => {
    // One request a window, each answered after 150 ms.
    sandbox.addFault({ kind: 'slow', delayMs: 150, times: Number.POSITIVE_INFINITY });
    const controller = new AbortController();
    let reader: Promise<Awaited<ReturnType<typeof openDatabase>>> | undefined;
    const running = exportAnalytics({
      ...common(),
      project: 'docs',
      metric: 'visitors',
      from: '2026-03-01',
      to: '2026-03-08',
      signal: controller.signal,
      // An analyst's read-only handle, from the plan on: every load of the run waits for it.
      onPlan: () => void (reader = openDatabase(db, { readOnly: true })),
    });
    while (sandbox.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await (await reader!).close();
    const run = await running;
    expect(run).toMatchObject({ exitCode: 130, stopped: 'interrupted' });
    expect(run.windowsLoaded).toBeGreaterThanOrEqual(2);
    const database = await openDatabase(db, { readOnly: true });
    try {
      expect(await database.all('SELECT count(*)::INTEGER AS n FROM loaded_windows')).toEqual([{ n: run.windowsLoaded }]);
      expect(await database.all('SELECT status, exit_code FROM runs')).toEqual([{ status: 'interrupted', exit_code: 130 }]);
    } finally {
      await database.close();
    }
    // A service's signal outlives its runs: none of them leaves a listener on it.
    const service = new AbortController();
    for (let i = 0; i < 3; i++) await exportAnalytics({ ...common(), project: 'docs', metric: 'visitors', from: '2026-03-08', to: '2026-03-09', refresh: true, signal: service.signal });
    expect(getEventListeners(service.signal, 'abort')).toEqual([]);
    // Its end is recorded, not kept in the spool for the next run; of its walks only the one cut off by the stop is left (to resume).
    expect(existsSync(join(`${db}.spool`, 'ends')) ? readdirSync(join(`${db}.spool`, 'ends')) : []).toEqual([]);
    expect(readdirSync(join(`${db}.spool`, 'walks'), { recursive: true }).filter((f) => String(f).endsWith('.jsonl'))).toHaveLength(1);
  });

  it('syncPipeline runs a pipeline given as an object, most recent windows first', async () => {
    const pipeline = { projects: ['docs'], metrics: ['visitors'], start: '2026-03-01', window: 'day', lookbackDays: 2, maxRequestsPerRun: 4 };
    const run = await syncPipeline({ ...common(), pipeline });
    expect(run).toMatchObject({ command: 'sync (options.pipeline)', windowsPlanned: 9, windowsLoaded: 4, exitCode: 75, stopped: 'budget' });
    const days = sandbox.requests.map((r) => r.query.dateFrom);
    expect(days).toEqual(['2026-03-09', '2026-03-08', '2026-03-07', '2026-03-06']);
    await expect(syncPipeline({ ...common(), pipeline: { ...pipeline, window: 'range' } })).rejects.toThrow(/'range' has no meaning/);
    // A budget of the caller's that cannot be is refused before the file's warnings speak of it.
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', write: (line) => void lines.push(line) });
    await expect(syncPipeline({ ...common(), logger, pipeline: { ...pipeline, maxRequestsPerRun: 500 }, requestsPerHour: -5 })).rejects.toThrow(/invalid requestsPerHour '-5'/);
    expect(lines).toEqual([]);
  });

  it('submitJobs submits prompts given in code once, follows them to the end, and resumes without submitting again', async () => {
    const prompts = [{ prompt: 'Add an FAQ to /quickstart [pr]' }, { prompt: 'Check /install [nopr]', id: 'install-check' }, { prompt: 'Add an FAQ to /quickstart [pr]' }];
    const events: string[] = [];
    const { value: result, writes } = await countWrites(() =>
      submitJobs({ ...common(), project: 'docs', prompts, pollIntervalMs: 500, onEvent: (e) => void events.push(e.kind) }),
    );
    expect(writes).toEqual([]);
    expect(result).toMatchObject({ total: 2, submitted: 2, exitCode: 0, counts: { completed: 2 } });
    expect(result.rows.map((r) => [r.promptKey.startsWith('sha256:') ? 'sha256' : r.promptKey, r.status, r.prLink !== null])).toEqual([
      ['sha256', 'completed', true],
      ['install-check', 'completed', false],
    ]);
    expect(events.filter((e) => e === 'submitted')).toHaveLength(2);
    expect(sandbox.jobs()).toHaveLength(2);

    const again = await submitJobs({ ...common(), project: 'docs', prompts, pollIntervalMs: 500 });
    expect(again).toMatchObject({ total: 2, submitted: 0, exitCode: 0 });
    expect(sandbox.jobs()).toHaveLength(2);
    await expect(submitJobs({ ...common(), project: 'docs', prompts, concurrency: 0 })).rejects.toThrow(/invalid concurrency '0'/);
  });

  it('promptsFromQuery renders rows for submitJobs, and sendMessages follows a job up, both through the ledger', async () => {
    await exportAnalytics({ ...common(), project: 'docs', metric: 'visitors', from: '2026-03-08', to: '2026-03-09' });
    const { columns, prompts } = await promptsFromQuery({
      db,
      sql: `SELECT path, total FROM page_visitors ORDER BY total DESC, path LIMIT 2`,
      template: 'Polish {path} ({total} visitors) [nopr]',
    });
    expect(columns).toEqual(['path', 'total']);
    const top = await openDatabase(db, { readOnly: true }).then(async (d) => {
      try {
        return await d.all<{ path: string; total: bigint }>('SELECT path, total FROM page_visitors ORDER BY total DESC, path LIMIT 2');
      } finally {
        await d.close();
      }
    });
    expect(prompts).toEqual(top.map((r, i) => ({ prompt: `Polish ${r.path} (${r.total} visitors) [nopr]`, row: i + 1 })));
    await expect(promptsFromQuery({ db, sql: 'SELECT 1 AS x', template: '{y}' })).rejects.toThrow(UsageError);
    // A stop ends the SQL running (minutes of work here, unless interrupted), as an interruption, not as bad SQL.
    const stopping = promptsFromQuery({ db, sql: 'SELECT sum(i) AS x FROM range(1000000000000) t(i)', template: '{x}', signal: AbortSignal.timeout(300) });
    await expect(stopping).rejects.toBeInstanceOf(InterruptedError);
    await expect(stopping).rejects.toThrow(/the SQL was stopped/);

    const submitted = await submitJobs({ ...common(), project: 'docs', prompts, pollIntervalMs: 500 });
    expect(submitted).toMatchObject({ total: 2, submitted: 2, exitCode: 0 });
    const first = submitted.rows[0]!;
    const sent = await sendMessages({
      ...common(),
      project: 'docs',
      messages: [{ promptKey: first.promptKey, prompt: 'Open a PR for it after all [pr]' }],
      pollIntervalMs: 500,
    });
    expect(sent).toMatchObject({ total: 1, sent: 1, exitCode: 0 });
    expect(sent.rows[0]).toMatchObject({ jobId: first.jobId, promptKey: first.promptKey, status: 'sent', statusAfter: 'active', jobStatus: 'completed', prLink: expect.stringMatching(/\/pull\//) });
    const again = await sendMessages({ ...common(), project: 'docs', messages: [{ jobId: first.jobId!, prompt: 'Open a PR for it after all [pr]' }] });
    expect(again).toMatchObject({ sent: 0, exitCode: 0 });
    expect(sandbox.requests.filter((r) => r.path.endsWith('/message'))).toHaveLength(1);
  });
});
