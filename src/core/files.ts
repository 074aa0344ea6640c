/** Small questions about the file system that several layers ask. */
import { accessSync, constants } from 'node:fs';

/** Whether this process may write `path` (a file, or a folder to make files in). */
export function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
