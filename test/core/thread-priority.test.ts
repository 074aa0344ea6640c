/**
 * Helper threads yield to the main thread: checked in real child processes (dist/), whose
 * threads' nice values and policies are read back from /proc, so that this test process is
 * left alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HELPER_THREAD_NICE, helperThreads, type HelperPriority } from '../../src/core/thread-priority.js';

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
const threads = () => readdirSync('/proc/self/task').map((tid) => {
  const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { tid: Number(tid), nice: Number(fields[16]), policy: Number(fields[38]) };
});
const before = threads();
const first = await lowerHelperThreads(process.argv[1]);
const second = await lowerHelperThreads(process.argv[1]);
console.log(JSON.stringify({ pid: process.pid, before, first, second, after: threads() }));
`;

interface Thread {
  tid: number;
  nice: number;
  policy: number;
}

function runChild(priority: HelperPriority) {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, priority], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  const out = JSON.parse(run.stdout) as { pid: number; before: Thread[]; first: number; second: number; after: Thread[] };
  const was = new Map(out.before.map((t) => [t.tid, t]));
  const main = out.after.find((t) => t.tid === out.pid);
  // Helpers present before and after (a thread may come or go meanwhile).
  const helpers = out.after.filter((t) => t.tid !== out.pid && was.has(t.tid));
  return { out, was, main, helpers };
}

const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

describe.runIf(process.platform === 'linux')('lowerHelperThreads (Linux)', () => {
  it('low: nice 10 for every thread but the main one, once; no policy change', () => {
    const { out, was, main, helpers } = runChild('low');
    expect(main).toEqual(was.get(out.pid));
    expect(helpers.length).toBeGreaterThan(0);
    // Lowered to the helpers' nice value, never raised (a test run under nice keeps its own).
    for (const t of helpers) expect(t.nice).toBe(Math.max(was.get(t.tid)?.nice ?? 0, HELPER_THREAD_NICE));
    for (const t of helpers) expect(t.policy).toBe(was.get(t.tid)?.policy);
    expect(out.first).toBe(helpers.filter((t) => (was.get(t.tid)?.nice ?? 0) < HELPER_THREAD_NICE).length);
    // Already lowered: nothing to do the second time.
    expect(out.second).toBe(0);
  });

  it.runIf(existsSync('/usr/bin/chrt') || existsSync('/bin/chrt'))('idle: SCHED_IDLE for every thread but the main one', () => {
    const { out, was, main, helpers } = runChild('idle');
    expect(main).toEqual(was.get(out.pid));
    expect(main?.policy).toBe(SCHED_OTHER);
    expect(helpers.length).toBeGreaterThan(0);
    for (const t of helpers) expect(t.policy).toBe(SCHED_IDLE);
    for (const t of helpers) expect(t.nice).toBeGreaterThanOrEqual(HELPER_THREAD_NICE);
  });

  it('normal: nothing changes', () => {
    const { out, was } = runChild('normal');
    expect(out.first).toBe(0);
    for (const t of out.after) if (was.has(t.tid)) expect(t).toEqual(was.get(t.tid));
  });
});
