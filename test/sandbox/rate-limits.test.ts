/** The sandbox's rate limits: the API's documented ones, over real HTTP, on a fake clock. */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { rateLimitScope } from '../../src/sandbox/rate-limits.js';
import { authHeaders, NOW } from './helpers.js';

const HOUR = 3_600_000;

describe('sandbox rate limits', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
  });

  async function status(s: Sandbox, method: 'GET' | 'POST', path: string): Promise<{ status: number; retryAfter: string | null }> {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: { ...authHeaders(s), 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify({ prompt: 'fix [pr]' }) } : {}),
    });
    await res.text();
    return { status: res.status, retryAfter: res.headers.get('retry-after') };
  }

  it('allows 100 analytics requests an hour for the organization, visitors and views together', async () => {
    let now = NOW;
    sandbox = await startSandbox({ now: () => now, site: { paths: 5 }, rateLimits: true });
    const query = '?dateFrom=2026-03-01&dateTo=2026-03-02&limit=250';
    for (let i = 0; i < 100; i++) {
      const path = i % 2 === 0 ? `/v1/analytics/docs/visitors${query}` : `/v1/analytics/other/views${query}`;
      now = NOW + i * 1000;
      expect((await status(sandbox, 'GET', path)).status).toBe(200);
    }
    now = NOW + 100_000;
    expect(await status(sandbox, 'GET', `/v1/analytics/third/visitors${query}`)).toEqual({ status: 429, retryAfter: String((HOUR - 100_000) / 1000) });
    // Polling is not limited; the first request leaves the hour, and one slot frees.
    expect((await status(sandbox, 'GET', '/v2/agent/docs/job/nope')).status).toBe(404);
    now = NOW + HOUR + 1;
    expect((await status(sandbox, 'GET', `/v1/analytics/docs/visitors${query}`)).status).toBe(200);
    expect((await status(sandbox, 'GET', `/v1/analytics/docs/visitors${query}`)).status).toBe(429);
  });

  it('allows 100 job submissions and messages an hour per project', async () => {
    sandbox = await startSandbox({ now: () => NOW, rateLimits: true });
    for (let i = 0; i < 99; i++) expect((await status(sandbox, 'POST', '/v2/agent/docs/job')).status).toBe(201);
    const id = sandbox.jobs()[0]!.id;
    expect((await status(sandbox, 'POST', `/v2/agent/docs/job/${id}/message`)).status).toBe(200);
    expect(await status(sandbox, 'POST', '/v2/agent/docs/job')).toEqual({ status: 429, retryAfter: '3600' });
    // Another project has its own budget; polling has none.
    expect((await status(sandbox, 'POST', '/v2/agent/other/job')).status).toBe(201);
    expect((await status(sandbox, 'GET', `/v2/agent/docs/job/${id}`)).status).toBe(200);
  });

  it('is off unless asked for (tests, the demo and the benchmark)', async () => {
    sandbox = await startSandbox({ now: () => NOW, site: { paths: 5 } });
    for (let i = 0; i < 105; i++) expect((await status(sandbox, 'GET', '/v1/analytics/docs/views?dateFrom=2026-03-01&dateTo=2026-03-02')).status).toBe(200);
  });

  it.each([
    ['GET', ['v1', 'analytics', 'p', 'visitors'], 'analytics'],
    ['GET', ['v1', 'analytics', 'p', 'feedback'], 'analytics'],
    ['POST', ['v2', 'agent', 'p', 'job'], 'agent:p'],
    ['POST', ['v2', 'agent', 'p', 'job', 'id', 'message'], 'agent:p'],
    ['GET', ['v2', 'agent', 'p', 'job', 'id'], undefined],
  ] as const)('%s /%s is limited under %s', (method, parts, scope) => {
    expect(rateLimitScope(method, parts)?.scope).toBe(scope);
  });
});
