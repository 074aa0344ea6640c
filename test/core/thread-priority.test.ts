/**
 * Helper threads yield to the main thread: checked in a real child process (dist/), whose
 * threads' nice values are read back from /proc, so that this test process is left alone.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HELPER_THREAD_NICE, helperThreads } from '../../src/core/thread-priority.js';

describe('helperThreads', () => {
  it('is every thread but the main one', () => {
    expect(helperThreads(['100', '101', '107', 'x'], 100)).toEqual([101, 107]);
    expect(helperThreads(['100'], 100)).toEqual([]);
  });
});

const CHILD = `
import { readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { lowerHelperThreads } from './dist/core/thread-priority.js';
await readFile('package.json'); // libuv's pool exists once an fs call has used it
const nices = () => readdirSync('/proc/self/task').map((tid) => {
  const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
  return { tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
});
const before = nices();
const first = lowerHelperThreads();
const second = lowerHelperThreads();
console.log(JSON.stringify({ pid: process.pid, before, first, second, after: nices() }));
`;

describe.runIf(process.platform === 'linux')('lowerHelperThreads (Linux)', () => {
  it('lowers every thread but the main one, once', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as {
      pid: number;
      before: { tid: number; nice: number }[];
      first: number;
      second: number;
      after: { tid: number; nice: number }[];
    };
    const niceBefore = new Map(out.before.map((t) => [t.tid, t.nice]));
    const main = out.after.find((t) => t.tid === out.pid);
    expect(main?.nice).toBe(niceBefore.get(out.pid));
    const helpers = out.after.filter((t) => t.tid !== out.pid && niceBefore.has(t.tid));
    expect(helpers.length).toBeGreaterThan(0);
    // Lowered to the helpers' nice value, never raised (a test run under nice keeps its own).
    for (const t of helpers) expect(t.nice).toBe(Math.max(niceBefore.get(t.tid) ?? 0, HELPER_THREAD_NICE));
    expect(out.first).toBe(helpers.filter((t) => (niceBefore.get(t.tid) ?? 0) < HELPER_THREAD_NICE).length);
    // Already lowered: nothing to do the second time.
    expect(out.second).toBe(0);
  });
});
