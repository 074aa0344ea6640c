import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgentJob } from '../../src/api/agent.js';
import { fetchAnalyticsPage } from '../../src/api/analytics.js';
import { HttpClient, attemptSignal, redactKey, unescapePlain, type HttpClientOptions } from '../../src/api/http-client.js';
import { createNodeTransport } from '../../src/api/transport.js';
import { ManualClock } from '../../src/core/clock.js';
import { ApiUnreachableError, DataError, HttpError, InterruptedError, MalformedResponseError, NetworkError, RateLimitError, TimeoutError } from '../../src/core/errors.js';
import { SANDBOX_API_KEY, startSandbox, type Sandbox } from '../../src/sandbox/server.js';

const NOW = Date.parse('2026-03-10T06:00:00Z');
const page = { metric: 'visitors', projectId: 'docs', dateFrom: '2026-03-01', dateTo: '2026-03-02', offset: 0 } as const;

describe('HttpClient against the sandbox', () => {
  let sandbox: Sandbox;
  let clock: ManualClock;
  const client = (options: Partial<HttpClientOptions> = {}) =>
    new HttpClient({ apiKey: SANDBOX_API_KEY, baseUrl: sandbox.url, clock, minBackoffMs: 1, maxBackoffMs: 2, ...options });

  beforeAll(async () => {
    sandbox = await startSandbox({ now: () => clock.now() });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  beforeEach(() => {
    clock = new ManualClock(NOW);
    sandbox.clearFaults();
    sandbox.requests.length = 0;
  });

  it('asks for the page and parses it', async () => {
    const result = await fetchAnalyticsPage(client(), page);
    expect(result.page.rows.length).toBeGreaterThan(0);
    expect(sandbox.requests[0]?.query).toMatchObject({ dateFrom: '2026-03-01', dateTo: '2026-03-02', limit: '250', offset: '0' });
  });

  it('waits an HTTP-date Retry-After on the fake clock', async () => {
    sandbox.addFault({ kind: 'rate-limit', retryAfter: new Date(NOW + 12_000).toUTCString() });
    await fetchAnalyticsPage(client(), page);
    expect(clock.sleeps).toEqual([12_000]);
    expect(sandbox.requests).toHaveLength(2);
  });

  it('does not use up retries on Retry-After waits, but does on backoff', async () => {
    sandbox.addFault({ kind: 'rate-limit', retryAfter: '1', times: 5 });
    await fetchAnalyticsPage(client({ retries: 1 }), page);
    expect(sandbox.requests).toHaveLength(6);
    sandbox.addFault({ kind: 'server-error', times: 2 });
    let retries = 0;
    await expect(fetchAnalyticsPage(client({ retries: 1, onRetry: () => void retries++ }), page)).rejects.toThrow(HttpError);
    expect(retries).toBe(1); // two attempts, one retry between them
  });

  it('waits a Retry-After that comes after the last backoff retry, and tries again', async () => {
    sandbox.addFault({ kind: 'server-error', times: 2 });
    sandbox.addFault({ kind: 'rate-limit', retryAfter: '5', times: 1 });
    const result = await fetchAnalyticsPage(client({ retries: 2 }), page);
    expect(result.page.rows.length).toBeGreaterThan(0);
    expect(sandbox.requests.map((r) => r.status)).toEqual([500, 500, 429, 200]);
    expect(clock.sleeps.at(-1)).toBe(5_000);
  });

  it('refuses a body larger than the cap without reading it all, as a data error that is not retried', async () => {
    const small = client({ transport: createNodeTransport(8, 1024) });
    const error = await fetchAnalyticsPage(small, page).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataError);
    expect((error as Error).message).toMatch(/^GET \/v1\/analytics\/docs\/visitors\?.* returned a body larger than 1024 bytes; not read$/);
    expect(sandbox.requests).toHaveLength(1);
    // The client goes on with the next request.
    await expect(fetchAnalyticsPage(client(), page)).resolves.toMatchObject({ page: { hasMore: expect.any(Boolean) } });
  });

  it('gives up at once on a Retry-After longer than the cap', async () => {
    sandbox.addFault({ kind: 'rate-limit', retryAfter: '3600' });
    const error = await fetchAnalyticsPage(client(), page).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect(clock.sleeps).toEqual([]);
  });

  it('begins no wait that would end past the request\'s time bound: it fails at once with the last error', async () => {
    // Two waits of 200 s, 300 s allowed in all: the first is slept, the second is not begun.
    sandbox.addFault({ kind: 'rate-limit', retryAfter: '200', times: 2 });
    const error = await fetchAnalyticsPage(client({ maxRetryAfterMs: 600_000, maxRetryTimeMs: 300_000 }), page).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(clock.sleeps).toEqual([200_000]);
    expect(sandbox.requests).toHaveLength(2);
    // Without a bound (a run that waits for the budget), both waits are slept and the request goes out again.
    sandbox.clearFaults();
    sandbox.requests.length = 0;
    sandbox.addFault({ kind: 'rate-limit', retryAfter: '200', times: 2 });
    await fetchAnalyticsPage(client({ maxRetryAfterMs: 600_000, maxRetryTimeMs: Number.POSITIVE_INFINITY }), page);
    expect(sandbox.requests.map((r) => r.status)).toEqual([429, 429, 200]);
  });

  it('names method and path, and the server message, never the key', async () => {
    sandbox.addFault({ kind: 'rate-limit', plainText: true, times: 10 });
    const error = (await fetchAnalyticsPage(client({ retries: 0 }), page).catch((e: unknown) => e)) as RateLimitError;
    expect(error.message).toMatch(/^GET \/v1\/analytics\/docs\/visitors\?dateFrom=2026-03-01.* failed with HTTP 429/);
    expect(error.message).not.toContain(SANDBOX_API_KEY);
  });

  it('blanks out the key where an error body echoes it (a gateway quoting the request\'s headers)', async () => {
    const echo = (status: number, body: string) => sandbox.addFault({ kind: 'body', status, body, times: 1 });
    echo(400, JSON.stringify({ error: 'Bad request', details: [{ message: `rejected header: Bearer ${SANDBOX_API_KEY}` }] }));
    echo(500, `upstream refused Authorization: Bearer ${SANDBOX_API_KEY}`);
    echo(200, JSON.stringify({ error: `key ${SANDBOX_API_KEY} is not allowed here` }));
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const error = (await fetchAnalyticsPage(client({ retries: 0 }), page).catch((e: unknown) => e)) as Error;
      messages.push(error.message);
    }
    for (const m of messages) {
      expect(m).not.toContain(SANDBOX_API_KEY);
      expect(m).toContain('[API key]');
    }
    expect(messages[0]).toMatch(/failed with HTTP 400: Bad request \(rejected header: Bearer \[API key\]\)$/);
  });

  it('blanks out the key before shortening a long message, and in an answer that echoes it', async () => {
    // The key past the 117 characters a message keeps: cut in two, it matched no more.
    sandbox.addFault({ kind: 'body', status: 403, body: `${'x'.repeat(80)} Authorization: Bearer ${SANDBOX_API_KEY}, Accept: json`, times: 1 });
    const error = (await fetchAnalyticsPage(client({ retries: 0 }), page).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('Bearer [API key]');
    expect(error.message).not.toContain(SANDBOX_API_KEY.slice(0, 8));
    // A 200 answer that carries the key (a job's failure reason quoting the request): the
    // parsed answer and the body kept for the spool have it blanked out.
    sandbox.addFault({ kind: 'patch', match: { method: 'POST', path: '/job' }, patch: { status: 'failed', errorMessage: `push rejected; request had Bearer ${SANDBOX_API_KEY}` }, times: 1 });
    const job = await createAgentJob(client(), 'docs', 'Fix the typo');
    expect(JSON.stringify(job)).not.toContain(SANDBOX_API_KEY);
    expect(JSON.stringify(job)).toContain('Bearer [API key]');
    sandbox.addFault({ kind: 'patch', match: { path: '/visitors' }, patch: { note: `key ${SANDBOX_API_KEY}` }, times: 1 });
    const received = await fetchAnalyticsPage(client(), page);
    expect(received.body).not.toContain(SANDBOX_API_KEY);
    expect(received.body).toContain('key [API key]');
  });

  it('blanks out a key a 2xx answer writes with \\u escapes (as .NET and Go write some characters), in the parsed answer and the body kept', async () => {
    const escaped = [...SANDBOX_API_KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const body = `{"id":"job_1","status":"failed","errorMessage":"push rejected; request had Bearer ${escaped}","prLink":null}`;
    sandbox.addFault({ kind: 'body', status: 200, match: { method: 'POST', path: '/job' }, body, times: 1 });
    const job = await createAgentJob(client(), 'docs', 'Fix the typo');
    expect(JSON.stringify(job)).not.toContain(SANDBOX_API_KEY);
    expect(JSON.stringify(job)).toContain('Bearer [API key]');
    sandbox.addFault({ kind: 'body', status: 200, match: { path: '/visitors' }, body: `{"totals":{"human":0,"ai":0,"total":0},"visitors":[],"hasMore":false,"note":"${escaped}"}`, times: 1 });
    const received = await fetchAnalyticsPage(client(), page);
    expect(JSON.stringify(JSON.parse(received.body))).not.toContain(SANDBOX_API_KEY);
    expect(received.body).toContain('[API key]');
  });

  it('redactKey: an escaped backslash before u is no escape, and text without the key is left exactly as it was', () => {
    const key = 'mint_a+b';
    expect(redactKey('{"a":"mint_a\\u002bb"}', key)).toBe('{"a":"[API key]"}');
    // `\\u0041` is a backslash then "u0041": not the key, and not rewritten.
    const notKey = '{"a":"\\\\u006dint_a+b \\u00e9 \\u0041"}';
    expect(redactKey(notKey, key)).toBe(notKey);
    // A key with its slashes escaped some ways and not others.
    expect(redactKey('{"a":"mint_ab\\/cd\\u002fef and mint_ab/cd\\/ef"}', 'mint_ab/cd/ef')).toBe('{"a":"[API key] and [API key]"}');
    // A key ending in a backslash: blanked whole, and the body is still JSON.
    const blanked = redactKey('{"error":"bad key mint_abc\\\\","code":401}', 'mint_abc\\');
    expect(blanked).toBe('{"error":"bad key [API key]","code":401}');
    expect(JSON.parse(blanked)).toEqual({ error: 'bad key [API key]', code: 401 });
    // Percent-encoded in a link, and escaped twice (JSON text inside a JSON string): blanked too, the body still JSON.
    const odd = 'mint_a/b+c=d"q';
    const body = JSON.stringify({ prLink: `https://x.test/pull/1?k=${encodeURIComponent(odd)}`, error: JSON.stringify({ key: odd }) });
    const clean = redactKey(body, odd);
    expect(clean).not.toContain(encodeURIComponent(odd));
    expect(JSON.parse(clean)).toEqual({ prLink: 'https://x.test/pull/1?k=[API key]', error: '{"key":"[API key]"}' });
    const other = '{"a":"\\u0041\\u00e9 caf\\u00e9"}';
    expect(redactKey(other, key)).toBe(other);
    // A short key (a placeholder) is blanked where it stands as a word, not inside words it would mangle.
    expect(redactKey("invalid --to '2026-13-02': expected a calendar date", 'e')).toBe("invalid --to '2026-13-02': expected a calendar date");
    expect(redactKey('{"hasMore":false,"note":"test"}', 'test')).toBe('{"hasMore":false,"note":"[API key]"}');
    expect(redactKey('Bearer abc1234 rejected', 'abc1234')).toBe('Bearer [API key] rejected');
    expect(redactKey('key abc1234x and abc1234', 'abc1234')).toBe('key abc1234x and [API key]');
    // What is blanked is not blanked again (a key that is a word of the placeholder).
    expect(redactKey('[API key] and key', 'key')).toBe('[API key] and [API key]');
    expect(redactKey(redactKey('mint_long_secret_key', 'mint_long_secret_key'), 'key')).toBe('[API key]');
    expect(unescapePlain('"\\u0022\\u005c\\u0041\\n\\u0001"')).toBe('"\\"\\\\A\\n\\u0001"');
  });

  it('does not retry other 4xx', async () => {
    const error = await fetchAnalyticsPage(new HttpClient({ apiKey: 'mint_wrong', baseUrl: sandbox.url, clock }), page).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(401);
    expect(sandbox.requests).toHaveLength(1);
  });

  it('retries a malformed body on GET but not a schema mismatch', async () => {
    sandbox.addFault({ kind: 'malformed' });
    await fetchAnalyticsPage(client(), page);
    expect(sandbox.requests).toHaveLength(2);
    sandbox.requests.length = 0;
    const mismatch = await client()
      .request({ method: 'GET', path: '/v1/analytics/docs/visitors', parse: () => { throw new DataError('no'); } })
      .catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(DataError);
    expect(mismatch).not.toBeInstanceOf(MalformedResponseError);
    expect(sandbox.requests).toHaveLength(1);
  });

  it('times out a slow request, and retries it on GET', async () => {
    sandbox.addFault({ kind: 'slow', delayMs: 400 });
    const result = await fetchAnalyticsPage(client({ timeoutMs: 100 }), page);
    expect(result.page.rows.length).toBeGreaterThan(0);
    sandbox.addFault({ kind: 'slow', delayMs: 400 });
    const error = await createAgentJob(client({ timeoutMs: 100 }), 'docs', 'x [pr]').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe('after-send');
  });

  it('stops a request in flight when its signal aborts, and does not retry it', async () => {
    sandbox.addFault({ kind: 'slow', delayMs: 400 });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const started = performance.now();
    const error = await fetchAnalyticsPage(client({ timeoutMs: 5_000 }), { ...page, signal: stop.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(performance.now() - started).toBeLessThan(350); // not the 400 ms the server takes
    expect(sandbox.requests).toHaveLength(1);
  });

  it("says an attempt its beforeSend refused was withdrawn: nothing reached the server", async () => {
    const ends: { status: number; notSent?: boolean; withdrawn?: boolean }[] = [];
    const refusing = client({ afterAttempt: (response) => void ends.push(response) });
    const refusal = new Error('taken by another run');
    await expect(createAgentJob(refusing, 'docs', 'x [pr]', undefined, { beforeSend: () => Promise.reject(refusal) })).rejects.toBe(refusal);
    expect(ends).toEqual([expect.objectContaining({ status: 0, notSent: true, withdrawn: true })]);
    expect(sandbox.requests).toHaveLength(0);
    // One that went out is not.
    await createAgentJob(refusing, 'docs', 'y [pr]');
    expect(ends[1]).not.toHaveProperty('withdrawn');
  });

  it('tells a reset after sending from a refused connection', async () => {
    sandbox.addFault({ kind: 'drop', match: { method: 'POST' }, dropPhase: 'after-handling' });
    const reset = await createAgentJob(client(), 'docs', 'x [pr]').catch((e: unknown) => e);
    expect(reset).toBeInstanceOf(NetworkError);
    expect((reset as NetworkError).phase).toBe('after-send');

    // A port nobody listens on: the POST is retried, since nothing can have been created.
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const { port } = free.address() as { port: number };
    await new Promise<void>((resolve) => free.close(() => resolve()));
    let attempts = 0;
    const refused = await createAgentJob(
      new HttpClient({ apiKey: SANDBOX_API_KEY, baseUrl: `http://127.0.0.1:${port}`, clock, retries: 2, minBackoffMs: 1, afterAttempt: () => void attempts++ }),
      'docs',
      'x',
    ).catch((e: unknown) => e);
    // Every retry failed to connect: the host is unreachable, named by its origin.
    expect(refused).toBeInstanceOf(ApiUnreachableError);
    expect((refused as ApiUnreachableError).message).toBe(`cannot connect to http://127.0.0.1:${port} (ECONNREFUSED): check --base-url (DOCPIPE_BASE_URL) and the network`);
    expect((refused as ApiUnreachableError).cause).toBeInstanceOf(NetworkError);
    expect(((refused as ApiUnreachableError).cause as NetworkError).phase).toBe('before-send');
    expect(attempts).toBe(3);
  });

  it('a connection that never completes (a TLS handshake never answered) times out as not sent: the POST is retried, and the host is unreachable', async () => {
    // Takes the connection and never says a word: the https request never goes out.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const ends: { notSent?: boolean }[] = [];
    try {
      const client = new HttpClient({
        apiKey: SANDBOX_API_KEY,
        baseUrl: `https://127.0.0.1:${port}`,
        clock,
        retries: 2,
        minBackoffMs: 1,
        timeoutMs: 200,
        afterAttempt: (info) => void ends.push(info),
      });
      const error = await createAgentJob(client, 'docs', 'x [pr]').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiUnreachableError);
      expect((error as Error).message).toBe(`cannot connect to https://127.0.0.1:${port} (timeout): check --base-url (DOCPIPE_BASE_URL) and the network`);
      expect(ends).toHaveLength(3);
      expect(ends.every((e) => e.notSent === true)).toBe(true);
    } finally {
      silent.close();
    }
  });
});

describe('attemptSignal', () => {
  const after = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  it('aborts when the time is up, and says it timed out', async () => {
    const attempt = attemptSignal(20, undefined);
    expect(attempt.signal.aborted).toBe(false);
    await after(60);
    expect(attempt.signal.aborted).toBe(true);
    expect(attempt.timedOut()).toBe(true);
    attempt.release();
  });

  it('aborts with the run signal, at once if it already has, without timing out', () => {
    const run = new AbortController();
    const attempt = attemptSignal(10_000, run.signal);
    run.abort(new Error('ctrl-c'));
    expect(attempt.signal.aborted).toBe(true);
    expect(attempt.signal.reason).toEqual(new Error('ctrl-c'));
    expect(attempt.timedOut()).toBe(false);
    attempt.release();
    const late = attemptSignal(10_000, run.signal);
    expect(late.signal.aborted).toBe(true);
    late.release();
  });

  it('a timeout too long for a timer (Infinity, 2^31 ms or more) never fires', async () => {
    for (const ms of [Infinity, 2 ** 31]) {
      const attempt = attemptSignal(ms, undefined);
      await after(30);
      expect(attempt.signal.aborted, String(ms)).toBe(false);
      attempt.release();
    }
  });

  it('once released, neither its timer nor the run signal aborts it', async () => {
    const run = new AbortController();
    const attempt = attemptSignal(20, run.signal);
    attempt.release();
    await after(60);
    run.abort();
    expect(attempt.signal.aborted).toBe(false);
    expect(attempt.timedOut()).toBe(false);
  });
});

describe('compressed bodies', () => {
  // A server that compresses though asked not to (a proxy, a CDN): its body is decoded.
  const answer = { totals: { human: 2, ai: 1, total: 3 }, visitors: [{ path: '/a', human: 2, ai: 1, total: 3 }], hasMore: false };
  const json = Buffer.from(JSON.stringify(answer));
  let server: HttpServer;
  let url: string;
  let coding: string;
  let body: Buffer;
  let status = 200;
  let contentType = 'application/json';
  let extra: Record<string, string> = {};
  const asked: (string | undefined)[] = [];

  beforeAll(async () => {
    server = createHttpServer((req, res) => {
      asked.push(req.headers['accept-encoding']);
      res.writeHead(status, { 'content-type': contentType, 'content-encoding': coding, ...extra });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  const client = (maxBodyBytes?: number, apiKey = 'mint_test') =>
    new HttpClient({ apiKey, baseUrl: url, retries: 0, maxRetryAfterWaits: 0, ...(maxBodyBytes ? { transport: createNodeTransport(8, maxBodyBytes) } : {}) });

  it.each([
    ['gzip', gzipSync(json)],
    ['x-gzip', gzipSync(json)],
    ['deflate', deflateSync(json)],
    ['deflate', deflateRawSync(json)], // deflate as some servers send it: without the zlib wrapper
    ['br', brotliCompressSync(json)],
    ['deflate, gzip', gzipSync(deflateSync(json))], // applied in order, undone in reverse
    ['identity', json],
  ])('reads a %s body, having asked for none', async (name, sent) => {
    [coding, body] = [name, sent];
    const result = await fetchAnalyticsPage(client(), page);
    expect(result.page.rows).toEqual([{ path: '/a', human: 2, ai: 1, total: 3 }]);
    expect(JSON.parse(result.body)).toEqual(answer);
    expect(asked.at(-1)).toBe('identity');
  });

  it('reads a body that begins with a byte order mark, and keeps it without one', async () => {
    [coding, body] = ['identity', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json])];
    const result = await fetchAnalyticsPage(client(), page);
    expect(result.page.rows).toEqual([{ path: '/a', human: 2, ai: 1, total: 3 }]);
    expect(result.body).toBe(JSON.stringify(answer));
  });

  it("keeps the base URL's path in front of the API's (a proxy's prefix), and refuses a path a '..' would move", async () => {
    const seen: string[] = [];
    const prefixed = createHttpServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => prefixed.listen(0, '127.0.0.1', resolve));
    try {
      const port = (prefixed.address() as AddressInfo).port;
      for (const base of [`http://127.0.0.1:${port}/mintlify-proxy/`, `http://127.0.0.1:${port}/mintlify-proxy`]) {
        await fetchAnalyticsPage(new HttpClient({ apiKey: 'mint_test', baseUrl: base, retries: 0 }), page);
      }
      // A path that begins with two slashes stays a path: it does not name another host.
      await fetchAnalyticsPage(new HttpClient({ apiKey: 'mint_test', baseUrl: `http://127.0.0.1:${port}//elsewhere.invalid/x/`, retries: 0 }), page);
      expect(seen.map((u) => u.split('?')[0])).toEqual([
        '/mintlify-proxy/v1/analytics/docs/visitors',
        '/mintlify-proxy/v1/analytics/docs/visitors',
        '/elsewhere.invalid/x/v1/analytics/docs/visitors',
      ]);
      const client = new HttpClient({ apiKey: 'mint_test', baseUrl: `http://127.0.0.1:${port}`, retries: 0 });
      for (const path of ['/v2/agent/docs/job/..', '/v2/agent/docs/job/%2E%2e/message', '/v2/agent/docs/job/./message']) {
        await expect(client.request({ method: 'GET', path, parse: (json) => json })).rejects.toThrow(/refusing to request '.*': a '\.' or '\.\.' in the path/);
      }
      expect(seen).toHaveLength(3);
    } finally {
      await new Promise((resolve) => prefixed.close(resolve));
    }
  });

  it('refuses a body that decodes past the cap, and one in a coding it does not know, naming them', async () => {
    [coding, body] = ['gzip', gzipSync(Buffer.alloc(4096, 32))];
    await expect(fetchAnalyticsPage(client(1024), page)).rejects.toThrow(/^GET \/v1\/analytics\/docs\/visitors\?\S+ returned a gzip body larger than 1024 bytes once decoded; not read$/);
    [coding, body] = ['zstd', json];
    await expect(fetchAnalyticsPage(client(), page)).rejects.toThrow(/returned a body in an encoding docpipe cannot read \(content-encoding: zstd\)$/);
    [coding, body] = ['gzip', json];
    await expect(fetchAnalyticsPage(client(), page)).rejects.toThrow(/returned a body that is not valid gzip \(content-encoding: gzip\)$/);
  });

  it('reads a body in the charset its Content-Type names, and refuses invalid UTF-8 that names none (distinct paths would come out alike)', async () => {
    const latin1 = Buffer.from(JSON.stringify({
      totals: { human: 2, ai: 0, total: 2 },
      visitors: [{ path: '/r\u00e9sum\u00e9', human: 1, ai: 0, total: 1 }, { path: '/r\u00e8sum\u00e8', human: 1, ai: 0, total: 1 }],
      hasMore: false,
    }), 'latin1');
    try {
      [coding, body, contentType] = ['identity', latin1, 'application/json; charset=ISO-8859-1'];
      const { page: read } = await fetchAnalyticsPage(client(), page);
      expect(read.rows.map((r) => r.path)).toEqual(['/r\u00e9sum\u00e9', '/r\u00e8sum\u00e8']);
      contentType = 'application/json';
      await expect(fetchAnalyticsPage(client(), page)).rejects.toThrow(/^GET \/v1\/analytics\/docs\/visitors\?\S+ returned a body that is not valid UTF-8 and names no other charset$/);
      contentType = 'application/json; charset=klingon';
      await expect(fetchAnalyticsPage(client(), page)).rejects.toThrow(/returned a body in a charset docpipe cannot read \(charset=klingon\)$/);
    } finally {
      contentType = 'application/json';
    }
  });

  it('says where a redirect points, and does not follow it (the key would go along)', async () => {
    try {
      [status, coding, body, extra] = [301, 'identity', Buffer.alloc(0), { location: 'https://api2.example.com/v1/analytics/docs/visitors' }];
      const before = asked.length;
      const error = await fetchAnalyticsPage(client(), page).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as Error).message).toMatch(
        /^GET \/v1\/analytics\/docs\/visitors\?\S+ failed with HTTP 301: redirected to https:\/\/api2\.example\.com\/v1\/analytics\/docs\/visitors, not followed \(the key goes to http:\/\/127\.0\.0\.1:\d+ only\): check --base-url \(DOCPIPE_BASE_URL\)$/,
      );
      expect(asked).toHaveLength(before + 1); // one request here, none followed (retries: 0)
    } finally {
      [status, extra] = [200, {}];
    }
  });

  it('an error status decides before the body: a 429 whose empty body is marked gzip is a 429, a 500 with a broken one a 500', async () => {
    try {
      [status, coding, body] = [429, 'gzip', Buffer.alloc(0)];
      await expect(fetchAnalyticsPage(client(), page)).rejects.toBeInstanceOf(RateLimitError);
      [status, coding, body] = [500, 'gzip', Buffer.from('upstream error')];
      const error = await fetchAnalyticsPage(client(), page).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(500);
    } finally {
      status = 200;
    }
  });

  it('an error answer with a body larger than any page is still that error: a 429 keeps its Retry-After', async () => {
    try {
      [status, coding, body, extra] = [429, 'identity', Buffer.alloc(200_000, 'x'), { 'retry-after': '7' }];
      const error = await fetchAnalyticsPage(client(100_000), page).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBe(7_000);
    } finally {
      [status, extra] = [200, {}];
    }
  });

  it('blanks out a key a server wrote with JSON escapes (\\/ for /)', async () => {
    try {
      [status, coding, body] = [400, 'identity', Buffer.from('{"error":"key mint_Ab12\\/Cd34+Ef56 is not allowed here"}')];
      const error = (await fetchAnalyticsPage(client(undefined, 'mint_Ab12/Cd34+Ef56'), page).catch((e: unknown) => e)) as Error;
      expect(error.message).toContain('key [API key] is not allowed here');
      expect(error.message).not.toContain('Cd34');
    } finally {
      status = 200;
    }
  });
});

describe('the transport keeps idle sockets only briefly', () => {
  it('closes a kept-alive socket left idle, though the server would keep it; a slow answer on its socket is not cut', async () => {
    const server = createHttpServer((req, res) => setTimeout(() => res.end('{"ok":true}'), req.url === '/slow' ? 600 : 0));
    // Like a proxy that keeps idle connections for minutes: the client must close its own.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const open = (): Promise<number> => new Promise((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    try {
      const transport = createNodeTransport(8, 1 << 20, 200);
      // Longer than the idle limit, but not idle: answered.
      expect(await transport(new URL(`${url}/slow`), { method: 'GET', headers: {}, signal: new AbortController().signal })).toMatchObject({ status: 200, text: '{"ok":true}' });
      await transport(new URL(`${url}/a`), { method: 'GET', headers: {}, signal: new AbortController().signal });
      expect(await open()).toBe(1); // the same socket, kept alive between the two
      const deadline = Date.now() + 5_000;
      while ((await open()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await open()).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
