/**
 * An export's loads yield the CPU to its fetch: the threads of libuv's pool, where DuckDB
 * runs, get a nice value 10 higher than the process; the main thread keeps its own. Each
 * case runs in a node process of its own (dist/), since a nice value cannot be lowered again.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LOAD_NICE_STEP, loweredNice, threadIdOf } from '../../src/cli/load-priority.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** Node code that reports the nice value of each of its threads, then what `body` returned. */
const REPORT = `
import { readdirSync, readFileSync } from 'node:fs';
const niceOf = () => Object.fromEntries(readdirSync('/proc/self/task').map((t) => [t, Number(readFileSync('/proc/self/task/' + t + '/stat', 'utf8').split(') ')[1].split(' ')[16])]));
`;

async function child(code: string, env: NodeJS.ProcessEnv = {}): Promise<{ pid: number; nice: Record<string, number>; result: unknown }> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', `${REPORT}\n${code}`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as { pid: number; nice: Record<string, number>; result: unknown };
}

describe('load priority: pure parts', () => {
  it('reads the thread id from a /proc/thread-self link', () => {
    expect(threadIdOf('4242/task/4250')).toBe(4250);
    expect(threadIdOf('/proc/4242/task/4250')).toBe(4250);
    expect(threadIdOf('4242')).toBeUndefined();
    expect(threadIdOf('')).toBeUndefined();
  });

  it('raises a nice value by the step, to at most 19', () => {
    expect(loweredNice(0)).toBe(LOAD_NICE_STEP);
    expect(loweredNice(-5)).toBe(-5 + LOAD_NICE_STEP);
    expect(loweredNice(15)).toBe(19);
    expect(loweredNice(19)).toBe(19);
  });
});

describe.skipIf(process.platform !== 'linux')('load priority on Linux', () => {
  it('lowers every pool thread once, and leaves the main thread alone', async () => {
    const { pid, nice, result } = await child(`
      const { lowerLoadPriority } = await import('./dist/cli/load-priority.js');
      const first = await lowerLoadPriority();
      const second = await lowerLoadPriority();
      console.log(JSON.stringify({ pid: process.pid, nice: niceOf(), result: { first, second } }));
    `);
    const { first, second } = result as { first: number[]; second: number[] };
    // libuv's pool has 4 threads unless UV_THREADPOOL_SIZE says otherwise.
    expect(first.length).toBe(4);
    expect(second).toEqual(first);
    expect(nice[String(pid)]).toBe(0);
    for (const tid of first) {
      expect(tid).not.toBe(pid);
      expect(nice[String(tid)]).toBe(LOAD_NICE_STEP);
    }
    // Nothing else was touched (V8's own threads, for one, keep the process's priority).
    const others = Object.entries(nice).filter(([tid]) => !first.includes(Number(tid)));
    expect(others.length).toBeGreaterThan(1);
    for (const [, value] of others) expect(value).toBe(0);
  });

  it('finds a pool of another size', async () => {
    const { result } = await child(
      `const { lowerLoadPriority } = await import('./dist/cli/load-priority.js');
       console.log(JSON.stringify({ pid: process.pid, nice: niceOf(), result: await lowerLoadPriority() }));`,
      { UV_THREADPOOL_SIZE: '2' },
    );
    expect((result as number[]).length).toBe(2);
  });

  it('the CLI does it for an export in a process of its own, and not for a caller that owns the process', async () => {
    // A bad --from fails the export at once; the lowering started before the command line was read.
    const code = (ownProcess: boolean): string => `
      const { runCli } = await import('./dist/cli/main.js');
      const io = { stdout: () => undefined, stderr: () => undefined, isTTY: false, clock: { now: () => Date.now(), sleep: async () => undefined } };
      const exit = await runCli(['export', 'visitors', '--project', 'p', '--from', 'not-a-day', '--db', ':memory:'], { io, ownProcess: ${ownProcess} });
      await new Promise((resolve) => setTimeout(resolve, 200));
      console.log(JSON.stringify({ pid: process.pid, nice: niceOf(), result: exit }));
    `;
    const own = await child(code(true));
    const embedded = await child(code(false));
    expect(own.result).toBe(2);
    expect(embedded.result).toBe(2);
    expect(Object.values(own.nice).filter((n) => n === LOAD_NICE_STEP)).toHaveLength(4);
    expect(own.nice[String(own.pid)]).toBe(0);
    expect(Object.values(embedded.nice).every((n) => n === 0)).toBe(true);
  });
});
