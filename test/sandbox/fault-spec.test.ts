import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { parseFaultSpec, type FaultSpec } from '../../src/sandbox/server.js';

describe('parseFaultSpec', () => {
  it.each<[string, FaultSpec]>([
    ['rate-limit', { kind: 'rate-limit' }],
    [
      'rate-limit:times=3:retryAfter=2:path=/visitors',
      { kind: 'rate-limit', times: 3, retryAfter: '2', match: { path: '/visitors' } },
    ],
    [
      'drop:method=POST:dropPhase=after-handling',
      { kind: 'drop', match: { method: 'POST' }, dropPhase: 'after-handling' },
    ],
    ['server-error:status=503:plainText', { kind: 'server-error', status: 503, plainText: true }],
    ['server-error:plainText=false', { kind: 'server-error', plainText: false }],
    ['slow:delayMs=250:skip=1', { kind: 'slow', delayMs: 250, skip: 1 }],
    ['malformed:times=Infinity', { kind: 'malformed', times: Infinity }],
    ['drift:times=inf:method=get', { kind: 'drift', times: Infinity, match: { method: 'GET' } }],
    // A week's windows only.
    ['ignore-offset:days=7:times=inf', { kind: 'ignore-offset', times: Infinity, match: { days: 7 } }],
    // An HTTP date keeps its colons.
    [
      'rate-limit:retryAfter=Wed, 21 Oct 2026 07:28:00 GMT:times=2',
      { kind: 'rate-limit', retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT', times: 2 },
    ],
    // body= and patch= take the rest of the text, colons and all.
    ['body:status=200:method=GET:body={"error":"later: try again"}', { kind: 'body', status: 200, match: { method: 'GET' }, body: '{"error":"later: try again"}' }],
    ['body:body=', { kind: 'body', body: '' }],
    ['patch:path=/job/:patch={"status":"cancelled","prLink":"n/a"}', { kind: 'patch', match: { path: '/job/' }, patch: { status: 'cancelled', prLink: 'n/a' } }],
  ])('reads %s', (text, expected) => {
    expect(parseFaultSpec(text)).toEqual(expected);
  });

  it.each([
    ['explode', 'unknown kind'],
    ['', 'unknown kind'],
    ['rate-limit:times=many', 'times'],
    ['rate-limit:times=-1', 'times'],
    ['rate-limit:colour=red', 'unknown field "colour"'],
    ['drop:dropPhase=during', 'dropPhase'],
    ['slow:delayMs', 'needs a value'],
    ['server-error:status=999', 'status'],
    ['rate-limit:method=PUT', 'method'],
    ['rate-limit:plainText=yes', 'plainText'],
    ['body', 'needs body'],
    ['patch:patch=[1]', 'patch must be a JSON object'],
    ['patch:patch={status', 'patch must be a JSON object'],
  ])('rejects %s with a UsageError naming the text', (text, reason) => {
    let caught: unknown;
    try {
      parseFaultSpec(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as Error).message).toContain(`"${text}"`);
    expect((caught as Error).message).toContain(reason);
  });
});
