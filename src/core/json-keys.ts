/**
 * Keys given twice in one JSON object. JSON.parse keeps the last of them without a word, so a
 * pipeline file with two `maxRequestsPerRun`, or a prompt line with two `prompt`, would run
 * with a value the user may not have meant. The files users write are checked with this.
 */

/** Where a duplicate key is: the key, and the path of its object (`''` for the top one). */
export interface DuplicateKey {
  key: string;
  /** `projects[1]`, `windows.visitors`; `''` for the top-level object. */
  in: string;
}

interface Frame {
  /** The keys seen in this object; null for an array. */
  keys: Set<string> | null;
  path: string;
  /** The key (object) or index (array) of the value being read. */
  key: string;
  index: number;
}

function childPath(frame: Frame): string {
  if (frame.keys === null) return `${frame.path}[${frame.index}]`;
  const name = /^[A-Za-z_$][\w$]*$/.test(frame.key) ? frame.key : JSON.stringify(frame.key);
  return frame.path === '' ? name : `${frame.path}.${name}`;
}

/**
 * Pure: the first key given twice in one object of `text`, which must be valid JSON (parse
 * it first); undefined when there is none. Keys compare as JSON.parse reads them (`"a"` and
 * `"\u0061"` are the same key).
 */
export function firstDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let at = 0; at < text.length; at++) {
    const c = text[at];
    if (c === '"') {
      let end = at + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top?.keys && expectKey) {
        const key = JSON.parse(text.slice(at, end + 1)) as string;
        if (top.keys.has(key)) return { key, in: top.path };
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      at = end;
    } else if (c === '{' || c === '[') {
      const top = stack.at(-1);
      stack.push({ keys: c === '{' ? new Set() : null, path: top ? childPath(top) : '', key: '', index: 0 });
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      const top = stack.at(-1);
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

/** `key "prompt" given twice` or `key "grain" given twice in projects[1]`: for a message. */
export function describeDuplicateKey(found: DuplicateKey): string {
  return `key ${JSON.stringify(found.key)} given twice${found.in === '' ? '' : ` in ${found.in}`} (keep one)`;
}
