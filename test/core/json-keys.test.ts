import { describe, expect, it } from 'vitest';
import { describeDuplicateKey, firstDuplicateKey } from '../../src/core/json-keys.js';

describe('firstDuplicateKey', () => {
  it.each([
    ['{"a":1,"b":2}', undefined],
    ['{"a":{"a":1},"b":[{"a":1},{"a":2}]}', undefined],
    ['[1,"a","a",{"x":"a"}]', undefined],
    // Values equal to keys, escaped quotes and braces inside strings are not keys.
    ['{"a":"a","b":"\\"a\\":{}","c":"}{,"}', undefined],
    ['{"a":1,"a":2}', { key: 'a', in: '' }],
    ['{"a":1,"\\u0061":2}', { key: 'a', in: '' }],
    [' { "projects" : [ {"id":"x"}, {"id":"y", "grain":"day", "grain":"week"} ] }', { key: 'grain', in: 'projects[1]' }],
    ['{"windows":{"visitors":{"n":1,"n":2}}}', { key: 'n', in: 'windows.visitors' }],
    ['{"odd key":{"k":[],"k":{}}}', { key: 'k', in: '"odd key"' }],
    ['[[{}],[{"q":1,"q":1}]]', { key: 'q', in: '[1][0]' }],
  ])('%s', (text, expected) => {
    JSON.parse(text); // valid JSON, as the callers guarantee
    expect(firstDuplicateKey(text)).toEqual(expected);
  });

  it('is described with its key and where it is', () => {
    expect(describeDuplicateKey({ key: 'prompt', in: '' })).toBe('key "prompt" given twice (keep one)');
    expect(describeDuplicateKey({ key: 'grain', in: 'projects[1]' })).toBe('key "grain" given twice in projects[1] (keep one)');
  });
});
