/**
 * A small RFC 4180 reader: comma-separated fields, double-quoted fields that may hold
 * commas, newlines and `""` escapes, records ended by LF or CRLF. Pure; it knows nothing
 * about files, so problems come back as a value with the line they belong to and the
 * caller names the file.
 *
 * Leniencies, chosen so hand-written files read the way their author meant:
 * - spaces or tabs before an opening quote are dropped (`1, "a, b"` is two fields);
 * - spaces or tabs after a closing quote are dropped;
 * - a quote inside an unquoted field is an ordinary character (`say "hi"`).
 * Text after a closing quote (`"a"b`) is an error rather than a guess.
 */
const isBlank = (c) => c === ' ' || c === '\t';
/** Splits CSV text into records. A trailing line break does not make an extra record. */
export function parseCsv(text) {
    const records = [];
    const n = text.length;
    let i = 0;
    let line = 1;
    while (i < n) {
        const recordLine = line;
        const fields = [];
        for (;;) {
            let value;
            let j = i;
            while (isBlank(text[j]))
                j++;
            if (text[j] === '"') {
                const quoteLine = line;
                const parts = [];
                i = j + 1;
                let closed = false;
                while (i < n) {
                    const next = text.indexOf('"', i);
                    if (next === -1)
                        break;
                    const chunk = text.slice(i, next);
                    parts.push(chunk);
                    line += countNewlines(chunk);
                    if (text[next + 1] === '"') {
                        parts.push('"');
                        i = next + 2;
                        continue;
                    }
                    i = next + 1;
                    closed = true;
                    break;
                }
                if (!closed)
                    return { ok: false, line: quoteLine, reason: 'unterminated quoted field (no closing quote)' };
                value = parts.join('');
                while (isBlank(text[i]))
                    i++;
                if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && (i + 1 === n || text[i + 1] === '\n'))) {
                    return { ok: false, line, reason: 'unexpected text after a closing quote (write a quote inside a quoted field as "")' };
                }
            }
            else {
                const start = i;
                while (i < n && text[i] !== ',' && text[i] !== '\n')
                    i++;
                value = text.slice(start, i);
                // CRLF: the CR belongs to the line break, not to the field.
                if (value.endsWith('\r') && (i === n || text[i] === '\n'))
                    value = value.slice(0, -1);
            }
            fields.push(value);
            if (i >= n)
                break;
            if (text[i] === ',') {
                i++;
                continue;
            }
            // A line break: LF, or CRLF (a lone CR can only reach here at the very end).
            if (text[i] === '\r')
                i++;
            i++;
            line++;
            break;
        }
        records.push({ line: recordLine, fields });
    }
    return { ok: true, records };
}
function countNewlines(text) {
    let count = 0;
    for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1))
        count++;
    return count;
}
//# sourceMappingURL=csv-reader.js.map