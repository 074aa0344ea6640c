/** takeShortLock: one holder at a time across processes and runs; a dead holder's lock taken over. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStart, thisProcess } from '../../src/core/process-identity.js';
import { sweepStaleLock, takeShortLock } from '../../src/spool/short-lock.js';

describe('takeShortLock', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-lock-'));
    path = join(dir, 'requests', 'budget.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holders of one process take turns, and the file names the holder while held', async () => {
    const order: string[] = [];
    const first = await takeShortLock(path, dir);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ owner: thisProcess() });
    const second = takeShortLock(path, dir).then((release) => {
      order.push('second');
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    order.push('first done');
    first();
    (await second)();
    expect(order).toEqual(['first done', 'second']);
    expect(existsSync(path)).toBe(false);
  });

  it('waits for a live process that holds it, gives up after its timeout without touching its file, and takes it over once the process is gone', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const theirs = JSON.stringify({ owner: { pid: child.pid, host: hostname(), start: processStart(child.pid!) } });
    const release = await (async () => {
      try {
        mkdirSync(join(dir, 'requests'), { recursive: true });
        writeFileSync(path, theirs);
        const started = Date.now();
        const without = await takeShortLock(path, dir, undefined, 150);
        expect(Date.now() - started).toBeGreaterThanOrEqual(140);
        without();
        expect(readFileSync(path, 'utf8')).toBe(theirs); // still the other's
      } finally {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
      const started = Date.now();
      const taken = await takeShortLock(path, dir, undefined, 5_000);
      expect(Date.now() - started).toBeLessThan(1_000);
      return taken;
    })();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ owner: thisProcess() });
    release();
    expect(existsSync(path)).toBe(false);
  });

  it('sweepStaleLock removes only a lock whose holder is gone: a live process\'s stays, and so does one this process holds', async () => {
    mkdirSync(join(dir, 'requests'), { recursive: true });
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const theirs = JSON.stringify({ owner: { pid: child.pid, host: hostname(), start: processStart(child.pid!) } });
    try {
      writeFileSync(path, theirs);
      sweepStaleLock(path, dir);
      expect(readFileSync(path, 'utf8')).toBe(theirs);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    sweepStaleLock(path, dir);
    expect(existsSync(path)).toBe(false);
    const mine = await takeShortLock(path, dir);
    sweepStaleLock(path, dir);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ owner: thisProcess() });
    mine();
    sweepStaleLock(path, dir); // nothing there: nothing to do
    expect(existsSync(path)).toBe(false);
  });
});
