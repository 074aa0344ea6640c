/**
 * Whether the process a record names is alive: by its pid and start on this host, boot and
 * pid namespace; by the heartbeat it keeps in the spool anywhere else (another container,
 * another machine sharing the folder). Real files in a temp spool, real processes.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { thisProcess } from '../../src/core/process-identity.js';
import { HEARTBEAT_STALE_MS, heartbeatFresh, recordAlive, startHeartbeat } from '../../src/spool/liveness.js';

const linux = process.platform === 'linux';

describe.runIf(linux)('liveness', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'docpipe-alive-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const me = () => thisProcess();
  /** A process in another container: this host name, its own pid namespace. */
  const container = (pid: number) => ({ pid, host: me().host, start: `${me().start!.split('.').slice(0, 2).join('.')}.1` });
  /** A process on another host (a pod of an earlier CronJob run). */
  const elsewhere = (pid: number) => ({ pid, host: `pod-${pid}`, start: `12345.0badc0de.4026531836` });
  const beat = (ref: { pid: number; start: string }, ageMs: number) => {
    const file = join(root, 'alive', `${ref.pid}+${ref.start}`);
    mkdirSync(join(root, 'alive'), { recursive: true });
    writeFileSync(file, '');
    const at = new Date(Date.now() - ageMs);
    utimesSync(file, at, at);
  };

  it('a process keeps its heartbeat in the spool, fresh', () => {
    startHeartbeat(root);
    expect(readdirSync(join(root, 'alive'))).toEqual([`${me().pid}+${me().start}`]);
    expect(heartbeatFresh(root, me())).toBe(true);
    // Once per spool.
    startHeartbeat(root);
    expect(readdirSync(join(root, 'alive'))).toHaveLength(1);
  });

  it('another host or container: alive while its heartbeat is fresh, gone once it is 5 minutes old or missing', () => {
    for (const ref of [elsewhere(1), container(1)]) {
      expect(recordAlive(root, ref)).toBe(false);
      beat(ref, 10_000);
      expect(recordAlive(root, ref)).toBe(true);
      beat(ref, HEARTBEAT_STALE_MS + 1_000);
      expect(recordAlive(root, ref)).toBe(false);
    }
    // A record without its start on another host cannot be told (taken for alive by the callers).
    expect(recordAlive(root, { pid: 1, host: 'pod-1' })).toBeNull();
  });

  it('this host and namespace: the pid and start decide, not a heartbeat (a killed run is gone at once)', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const ref = { pid: gone, host: me().host, start: `1.${me().start!.split('.').slice(1).join('.')}` };
    beat(ref, 0);
    expect(recordAlive(root, ref)).toBe(false);
    expect(recordAlive(root, me())).toBe(true);
  });
});
