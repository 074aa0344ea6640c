import { describe, expect, it } from 'vitest';
import { isTerminalStatus, parseAgentJob, parseAnalyticsPage } from '../../src/api/schemas.js';
import { DataError } from '../../src/core/errors.js';

describe('parseAgentJob', () => {
  it('reads a full job', () => {
    const job = parseAgentJob(
      { id: 'j1', status: 'completed', source: { repository: 'https://github.com/a/b', ref: 'main' }, model: 'm', prLink: 'https://github.com/a/b/pull/1', createdAt: '2026-01-01T00:00:00Z', archivedAt: null },
      'GET /x',
    );
    expect(job).toEqual({ id: 'j1', status: 'completed', repository: 'https://github.com/a/b', ref: 'main', model: 'm', prLink: 'https://github.com/a/b/pull/1', badPrLink: null, reason: null, createdAt: '2026-01-01T00:00:00Z', archivedAt: null });
  });
  it('survives missing and mistyped fields, keeping an unknown status', () => {
    const job = parseAgentJob({ id: 42, status: 'paused', source: 'nope', prLink: 7 }, 'GET /x');
    // A link that is not text is no link: flagged with its JSON text, not dropped silently.
    expect(job).toEqual({ id: '42', status: 'paused', repository: null, ref: null, model: null, prLink: null, badPrLink: '7', reason: null, createdAt: null, archivedAt: null });
    expect(isTerminalStatus(job.status)).toBe(false);
    expect(parseAgentJob({}, 'GET /x').status).toBeNull();
    // A status that is not text is kept as its JSON text, not taken for no status (then 'active').
    expect(parseAgentJob({ id: 'j', status: 123 }, 'GET /x').status).toBe('123');
    expect(parseAgentJob({ id: 'j', status: { phase: 'done' } }, 'GET /x').status).toBe('{"phase":"done"}');
    expect(parseAgentJob({ id: 'j', status: null }, 'GET /x').status).toBeNull();
  });
  it.each(['', '  ', '.', '..', ' .. '])('an id %j cannot name its job in a path: the answer has no id', (id) => {
    expect(parseAgentJob({ id, status: 'active' }, 'POST /x').id).toBeNull();
  });
  it.each([
    ['not a url', null, 'not a url'],
    ['javascript:alert(1)', null, 'javascript:alert(1)'],
    ['github.com/a/b/pull/1', null, 'github.com/a/b/pull/1'],
    ['http://github.com/a/b/pull/1', 'http://github.com/a/b/pull/1', null],
    [{ url: 'https://github.com/a/b/pull/7' }, null, '{"url":"https://github.com/a/b/pull/7"}'],
  ])('prLink %j is kept as a link only when it is an http(s) URL', (prLink, link, bad) => {
    expect(parseAgentJob({ id: 'j', status: 'completed', prLink }, 'GET /x')).toMatchObject({ prLink: link, badPrLink: bad });
  });
  it.each([
    [{ error: 'Merge conflict in docs.json' }, 'Merge conflict in docs.json'],
    [{ errorMessage: ' out of credits ' }, 'out of credits'],
    [{ error: { message: 'repository not found' } }, 'repository not found'],
    [{ failureReason: 'timeout' }, 'timeout'],
    [{ error: '' }, null],
    [{}, null],
  ])('reads a failure reason from %j', (extra, reason) => {
    expect(parseAgentJob({ id: 'j', status: 'failed', ...extra }, 'GET /x').reason).toBe(reason);
  });
  it('refuses a body that is not an object', () => {
    expect(() => parseAgentJob([], 'GET /x')).toThrow(DataError);
    expect(() => parseAgentJob('job', 'GET /x')).toThrow(/GET \/x returned an unexpected body/);
  });
  it.each(['completed', 'archived', 'failed'])('%s is terminal', (status) => {
    expect(isTerminalStatus(status)).toBe(true);
  });
  it.each(['active', 'pending', null])('%s is not terminal', (status) => {
    expect(isTerminalStatus(status)).toBe(false);
  });
});

describe('parseAnalyticsPage', () => {
  const totals = { human: 1, ai: 1, total: 2 };
  it('reads visitors and views under one name', () => {
    expect(parseAnalyticsPage('visitors', { totals, visitors: [{ path: '/a', ...totals }], hasMore: false }, 'x').rows).toHaveLength(1);
    expect(parseAnalyticsPage('views', { totals, views: [], hasMore: true }, 'x')).toEqual({ totals, rows: [], hasMore: true });
  });
  it('takes null and out-of-range counts for the loader to flag, and still refuses text', () => {
    const page = parseAnalyticsPage('visitors', JSON.parse('{"totals":{"human":1e400,"ai":null,"total":1},"visitors":[{"path":"/a","human":null,"ai":18446744073709551616,"total":1}],"hasMore":false}'), 'GET /v');
    expect(page.totals).toEqual({ human: Infinity, ai: null, total: 1 });
    expect(page.rows[0]).toEqual({ path: '/a', human: null, ai: 18446744073709551616, total: 1 });
    expect(() => parseAnalyticsPage('visitors', { totals: { human: '1', ai: 1, total: 1 }, visitors: [], hasMore: false }, 'GET /v')).toThrow(/totals\.human/);
  });
  it('names what broke the schema', () => {
    expect(() => parseAnalyticsPage('visitors', { totals, views: [], hasMore: false }, 'GET /v')).toThrow(/GET \/v returned an unexpected body \(visitors:/);
    expect(() => parseAnalyticsPage('views', { totals, views: [{ path: '/a', human: '1', ai: 0, total: 1 }], hasMore: false }, 'GET /v')).toThrow(/views\.0\.human/);
  });
});
