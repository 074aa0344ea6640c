import { request as httpRequest, Agent } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { NOW, addDays, analyticsPath, authHeaders, getPage, postJson, walkWindow } from './helpers.js';

const WEEK = '2026-02-02';
const VISITORS = analyticsPath('visitors', WEEK, addDays(WEEK, 7), { limit: 10 });

describe('sandbox faults', () => {
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = await startSandbox({ now: () => NOW });
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const get = (path = VISITORS): Promise<Response> => fetch(`${sandbox.url}${path}`, { headers: authHeaders(sandbox) });
  const statuses = async (count: number, path = VISITORS): Promise<number[]> => {
    const result: number[] = [];
    for (let i = 0; i < count; i++) result.push((await get(path)).status);
    return result;
  };

  it('rate-limit: 429 with Retry-After when given, once by default', async () => {
    sandbox.addFault({ kind: 'rate-limit', retryAfter: '2' });
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.headers.get('content-type')).toMatch(/application\/json/);
    expect(await limited.json()).toEqual({ error: 'Rate limit exceeded' });
    expect((await get()).status).toBe(200);
  });

  it('rate-limit: no Retry-After header unless given; a plain-text body on request', async () => {
    sandbox.addFault({ kind: 'rate-limit', plainText: true });
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers.has('retry-after')).toBe(false);
    expect(limited.headers.get('content-type')).toMatch(/text\/plain/);
    expect(await limited.text()).toBe('Rate limit exceeded');
  });

  it('rate-limit: an HTTP-date Retry-After is passed through verbatim', async () => {
    const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
    sandbox.addFault({ kind: 'rate-limit', retryAfter: date });
    expect((await get()).headers.get('retry-after')).toBe(date);
  });

  it('server-error: 500 by default, 503 with Retry-After on request', async () => {
    sandbox.addFault({ kind: 'server-error' });
    sandbox.addFault({ kind: 'server-error', status: 503, retryAfter: '1' });
    const first = await get();
    expect(first.status).toBe(500);
    expect(await first.json()).toEqual({ error: 'Internal server error' });
    expect(first.headers.has('retry-after')).toBe(false);
    const second = await get();
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(await second.json()).toHaveProperty('error');
    expect((await get()).status).toBe(200);
  });

  it('server-error with a client status says what it is, not "Internal server error"', async () => {
    for (const status of [401, 403, 404]) sandbox.addFault({ kind: 'server-error', status });
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push(await (await get()).json());
    expect(bodies).toEqual([{ error: 'Unauthorized' }, { error: 'Forbidden' }, { error: 'Not found' }]);
  });

  it('drop: the socket closes without a response, and the request is recorded with status 0', async () => {
    sandbox.addFault({ kind: 'drop' });
    await expect(get()).rejects.toThrow();
    expect((await get()).status).toBe(200);
    expect(sandbox.requests.map((r) => r.status)).toEqual([0, 200]);
  });

  it('drop before handling: a POST creates no job', async () => {
    sandbox.addFault({ kind: 'drop', match: { method: 'POST', path: '/job' } });
    await expect(postJson(sandbox, '/v2/agent/acme/job', { prompt: 'fix typos' })).rejects.toThrow();
    expect(sandbox.jobs()).toEqual([]);
  });

  it('drop after handling: the POST fails for the client but the job exists', async () => {
    sandbox.addFault({ kind: 'drop', match: { method: 'POST', path: '/job' }, dropPhase: 'after-handling' });
    await expect(postJson(sandbox, '/v2/agent/acme/job', { prompt: 'fix typos' })).rejects.toThrow();
    expect(sandbox.jobs()).toHaveLength(1);
    expect(sandbox.jobs()[0]?.prompt).toBe('fix typos');
    expect(sandbox.requests.at(-1)?.status).toBe(0);
  });

  it('slow: answers normally after the delay', async () => {
    sandbox.addFault({ kind: 'slow', delayMs: 300 });
    const started = performance.now();
    const res = await get();
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveProperty('visitors');
  });

  it('slow: close() does not wait for a pending delay', async () => {
    sandbox.addFault({ kind: 'slow', delayMs: 60_000 });
    const pending = get().then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await sandbox.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await pending).toBe('failed');
  });

  it('malformed: a 200 JSON response whose body does not parse', async () => {
    sandbox.addFault({ kind: 'malformed' });
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    await expect(res.json()).rejects.toThrow();
    expect(await (await get()).json()).toHaveProperty('visitors');
  });

  it('drift: the next page repeats the previous page’s last path and totals change; page 1 is untouched', async () => {
    const clean = await walkWindow(sandbox, 'visitors', WEEK, addDays(WEEK, 7), { limit: 100 });
    sandbox.addFault({ kind: 'drift', match: { path: '/visitors' } });
    const first = await getPage(sandbox, 'visitors', WEEK, addDays(WEEK, 7), { limit: 100 });
    expect(first).toEqual(clean.pages[0]);
    const second = await getPage(sandbox, 'visitors', WEEK, addDays(WEEK, 7), { limit: 100, offset: 100 });
    expect(second.rows[0]?.path).toBe(first.rows.at(-1)?.path);
    expect(second.rows).toEqual(clean.rows.slice(99, 199));
    expect(second.totals).toEqual({
      human: clean.totals.human + 1,
      ai: clean.totals.ai,
      total: clean.totals.total + 1,
    });
    // Used up after changing one page.
    const third = await getPage(sandbox, 'visitors', WEEK, addDays(WEEK, 7), { limit: 100, offset: 200 });
    expect(third).toEqual(clean.pages[2]);
  });

  it('drift: a walk sees a repeated path across pages', async () => {
    sandbox.addFault({ kind: 'drift', times: Infinity });
    const walked = await walkWindow(sandbox, 'views', WEEK, addDays(WEEK, 7), { limit: 50 });
    const paths = walked.rows.map((r) => r.path);
    expect(new Set(paths).size).toBeLessThan(paths.length);
    expect(walked.pages[1]?.totals).not.toEqual(walked.pages[0]?.totals);
  });

  it('times and skip: let some through, affect some, then stop', async () => {
    sandbox.addFault({ kind: 'rate-limit', skip: 2, times: 2 });
    expect(await statuses(6)).toEqual([200, 200, 429, 429, 200, 200]);
  });

  it('times Infinity never runs out; clearFaults removes it', async () => {
    sandbox.addFault({ kind: 'server-error', status: 502, times: Infinity });
    expect(await statuses(4)).toEqual([502, 502, 502, 502]);
    sandbox.clearFaults();
    expect(await statuses(1)).toEqual([200]);
  });

  it('faults fire in the order added, each only on matching requests', async () => {
    sandbox.addFault({ kind: 'rate-limit', match: { path: '/views' } });
    sandbox.addFault({ kind: 'server-error', match: { method: 'GET' }, times: 2 });
    const views = analyticsPath('views', WEEK, addDays(WEEK, 7));
    expect(await statuses(1, views)).toEqual([429]);
    expect(await statuses(3)).toEqual([500, 500, 200]);
    const post = await postJson(sandbox, '/v2/agent/acme/job', { prompt: 'document the CLI' });
    expect(post.status).toBe(201);
  });

  it('faults given at start apply too, on any route', async () => {
    const faulty = await startSandbox({ now: () => NOW, faults: [{ kind: 'rate-limit', match: { method: 'POST' }, retryAfter: '5' }] });
    try {
      const res = await fetch(`${faulty.url}/v2/agent/acme/job`, {
        method: 'POST',
        headers: authHeaders(faulty),
        body: JSON.stringify({ prompt: 'x' }),
      });
      expect(res.status).toBe(429);
      expect(faulty.jobs()).toEqual([]);
    } finally {
      await faulty.close();
    }
  });

  it('records every request in order with method, path, query and status', async () => {
    sandbox.addFault({ kind: 'rate-limit', skip: 1 });
    await get();
    await get();
    await postJson(sandbox, '/v2/agent/acme/job', { prompt: 'p' });
    expect(sandbox.requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/v1/analytics/acme/visitors', 200],
      ['GET', '/v1/analytics/acme/visitors', 429],
      ['POST', '/v2/agent/acme/job', 201],
    ]);
    expect(sandbox.requests[0]?.query).toEqual({ dateFrom: WEEK, dateTo: addDays(WEEK, 7), limit: '10' });
    expect(sandbox.requests[0]?.at).toBe(NOW);
  });

  it('keeps connections alive between requests and still closes promptly', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const once = (): Promise<boolean> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(`${sandbox.url}${VISITORS}`, { agent, headers: authHeaders(sandbox) }, (res) => {
          res.resume();
          res.on('end', () => resolve(req.reusedSocket));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect(await once()).toBe(false);
      expect(await once()).toBe(true);
      expect(await once()).toBe(true);
      // An idle keep-alive socket must not hold close() up.
      const started = performance.now();
      await sandbox.close();
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      agent.destroy();
    }
  });
});
