/**
 * A record's process: its pid and its start, so that a reused pid is not taken for the
 * process that wrote the record. Real processes: this one, and a child started and ended here.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, isThisProcess, processStart, startTicksFromStat, thisProcess } from '../../src/core/process-identity.js';

const linux = process.platform === 'linux';

describe('startTicksFromStat', () => {
  it('reads field 22, counted after the command name, which may hold spaces and parentheses', () => {
    const rest = ['S', ...Array.from({ length: 18 }, (_, i) => String(i + 4)), '4242', '23', '24'].join(' ');
    expect(startTicksFromStat(`123 (node) ${rest}`)).toBe('4242');
    expect(startTicksFromStat(`123 (a b) (c)) ${rest}`)).toBe('4242');
    expect(startTicksFromStat('123 (node) S 1 2')).toBeUndefined();
  });
});

describe.runIf(linux)('process identity (Linux)', () => {
  it('names this process with its start, which stays the same', () => {
    const me = thisProcess();
    expect(me).toMatchObject({ pid: process.pid, host: hostname() });
    expect(me.start).toMatch(/^\d+\.[0-9a-f]{8}$/);
    expect(processStart(process.pid)).toBe(me.start);
    expect(isThisProcess(me)).toBe(true);
    // An earlier process that had this pid is not this one; a record without a start is (pid only).
    expect(isThisProcess({ ...me, start: '1.00000000' })).toBe(false);
    expect(isThisProcess({ pid: me.pid, host: me.host })).toBe(true);
  });

  it('a live pid whose start differs is a reused pid: not alive; an unknown start leaves the pid to decide', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await once(child, 'spawn');
      const pid = child.pid!;
      const start = processStart(pid)!;
      expect(start).toMatch(/^\d+\.[0-9a-f]{8}$/);
      expect(start).not.toBe(thisProcess().start);
      expect(isProcessAlive(pid, start)).toBe(true);
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
});
