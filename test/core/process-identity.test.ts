/**
 * A record's process: its pid and its start, so that a reused pid is not taken for the
 * process that wrote the record. Real processes: this one, and a child started and ended here.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { checkFor, isProcessAlive, isThisProcess, processStart, startTicksFromStat, thisProcess } from '../../src/core/process-identity.js';

const linux = process.platform === 'linux';

describe('startTicksFromStat', () => {
  it('reads field 22, counted after the command name, which may hold spaces and parentheses', () => {
    const rest = ['S', ...Array.from({ length: 18 }, (_, i) => String(i + 4)), '4242', '23', '24'].join(' ');
    expect(startTicksFromStat(`123 (node) ${rest}`)).toBe('4242');
    expect(startTicksFromStat(`123 (a b) (c)) ${rest}`)).toBe('4242');
    expect(startTicksFromStat('123 (node) S 1 2')).toBeUndefined();
  });
});

describe('checkFor', () => {
  const me = { pid: 10, host: 'a', start: '100.aaaaaaaa.1' };
  it.each([
    ['this process', { pid: 10, host: 'a', start: '100.aaaaaaaa.1' }, 'this'],
    ['an earlier process with its pid', { pid: 10, host: 'a', start: '99.aaaaaaaa.1' }, 'pid'],
    ['another process of this host, boot and namespace', { pid: 11, host: 'a', start: '7.aaaaaaaa.1' }, 'pid'],
    ['a start without a namespace (checked here)', { pid: 11, host: 'a', start: '7.aaaaaaaa' }, 'pid'],
    ['another container of the same host name (its own pids)', { pid: 10, host: 'a', start: '100.aaaaaaaa.2' }, 'heartbeat'],
    ['another boot', { pid: 11, host: 'a', start: '7.bbbbbbbb.1' }, 'heartbeat'],
    ['another host (a new pod each run)', { pid: 1, host: 'b', start: '7.cccccccc.5' }, 'heartbeat'],
    ['another host, no start recorded', { pid: 1, host: 'b' }, 'unknown'],
    ['this host, no start recorded: the pid decides', { pid: 11, host: 'a' }, 'pid'],
    ['this pid, no start recorded', { pid: 10, host: 'a' }, 'this'],
  ] as const)('%s: %s', (_what, ref, check) => {
    expect(checkFor(ref, me)).toBe(check);
  });

  it('where this process has no start (not Linux), the pid decides on this host', () => {
    const bare = { pid: 10, host: 'a' };
    expect(checkFor({ pid: 10, host: 'a', start: '100.aaaaaaaa.1' }, bare)).toBe('this');
    expect(checkFor({ pid: 11, host: 'a', start: '100.aaaaaaaa.1' }, bare)).toBe('pid');
    expect(checkFor({ pid: 11, host: 'b', start: '100.aaaaaaaa.1' }, bare)).toBe('unknown');
  });
});

describe.runIf(linux)('process identity (Linux)', () => {
  it('names this process with its start, which stays the same', () => {
    const me = thisProcess();
    expect(me).toMatchObject({ pid: process.pid, host: hostname() });
    expect(me.start).toMatch(/^\d+\.[0-9a-f]{8}\.\d+$/);
    expect(me.start!.startsWith(`${processStart(process.pid)!}.`)).toBe(true);
    expect(isThisProcess(me)).toBe(true);
    // An earlier process that had this pid is not this one; a record without a start is (pid only).
    expect(isThisProcess({ ...me, start: '1.00000000' })).toBe(false);
    expect(isThisProcess({ ...me, host: `not-${me.host}` })).toBe(false);
    expect(isThisProcess({ pid: me.pid, host: me.host })).toBe(true);
  });

  it('a live pid whose start differs is a reused pid: not alive; an unknown start leaves the pid to decide', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await once(child, 'spawn');
      const pid = child.pid!;
      const start = processStart(pid)!;
      expect(start).toMatch(/^\d+\.[0-9a-f]{8}$/);
      expect(thisProcess().start!.startsWith(start)).toBe(false);
      expect(isProcessAlive(pid, start)).toBe(true);
      expect(isProcessAlive(pid, `${start}.${thisProcess().start!.split('.')[2]}`)).toBe(true);
      expect(isProcessAlive(pid)).toBe(true);
      expect(isProcessAlive(pid, thisProcess().start)).toBe(false);
      // Another boot: whatever its ticks, not this process.
      expect(isProcessAlive(pid, `${start.split('.')[0]}.ffffffff`)).toBe(start.endsWith('ffffffff'));
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    expect(isProcessAlive(child.pid!)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('a zombie (exited, not yet collected by its parent) is not alive', async () => {
    // The shell starts a short sleep and becomes a long one, which never collects it.
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [chunk] = (await once(parent.stdout!, 'data')) as [Buffer];
      const pid = Number(chunk.toString().trim());
      // Exited (a zombie) once its sleep is over: up to 5 s on a busy machine.
      for (let waited = 0; !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8')) && waited < 5_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /);
      expect(isProcessAlive(pid)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
      await once(parent, 'exit');
    }
  });
});
