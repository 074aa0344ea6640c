/**
 * `--out` of the commands that write files (`report`, `dump`): checked before any work, so
 * that a path that cannot be written is a usage error (exit 2) naming it, not a raw EISDIR
 * or ENOTDIR after the database was read.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';

/** Throws UsageError unless `value` names a file (`'file'`) or folder (`'folder'`) that can be made or written. */
export function checkOutPath(value: string, kind: 'file' | 'folder'): string {
  const bad = (why: string): UsageError => new UsageError(`invalid --out '${value}': ${why}; expected a ${kind === 'file' ? 'file name' : 'folder'}`);
  if (!value.trim()) throw bad('empty');
  const path = resolve(value);
  if (existsSync(path)) {
    const isFolder = statSync(path).isDirectory();
    if (kind === 'file' && isFolder) throw bad('it is a folder');
    if (kind === 'folder' && !isFolder) throw bad('it is a file');
    return path;
  }
  // The nearest part of the path that exists must be a folder to make the rest in.
  let above = dirname(path);
  while (!existsSync(above) && dirname(above) !== above) above = dirname(above);
  if (!statSync(above).isDirectory()) throw bad(`${above} is a file`);
  return path;
}
