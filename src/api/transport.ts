/**
 * The transport under the HTTP client: node:http(s) with keep-alive connections. Much lighter
 * on the CPU than fetch, which matters when a run parses thousands of pages while DuckDB
 * loads on the other core. It only moves bytes; statuses and retries are the client's.
 */
import { isUtf8 } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { DataError } from '../core/errors.js';

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request; the error then has name 'AbortError'. */
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  header(name: string): string | undefined;
  text: string;
}

export type Transport = (url: URL, request: TransportRequest) => Promise<TransportResponse>;

function responseClosedEarly(): Error {
  return Object.assign(new Error('the connection closed before the response ended'), { code: 'ECONNRESET' });
}

/**
 * The largest body read, 64 MiB: a page of 250 rows is about 50 KB, and a body beyond what a
 * string can hold (about 512 MiB) would otherwise fail where nothing catches it, ending the
 * process at the same window on every run.
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The body's text: UTF-8, as JSON is sent; a body that is not, in the charset its
 * Content-Type names (`iso-8859-1`, say). An answer (`strict`: a 2xx) in invalid UTF-8 with no
 * other charset named is an error: decoded anyway, distinct paths would come out alike (each
 * bad byte one U+FFFD) and look like rows repeated, a drift that is not. An error body is
 * only shown: it is read as UTF-8 whatever it holds.
 */
export function bodyText(body: Buffer, contentType: string | undefined, strict: boolean, what: string): string {
  if (!strict || isUtf8(body)) return body.toString('utf8');
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      throw new DataError(`${what} returned a body in a charset docpipe cannot read (charset=${charset})`);
    }
  }
  throw new DataError(`${what} returned a body that is not valid UTF-8 and names no other charset`);
}

/**
 * The body as sent, decoded: requests ask for `identity`, but a server (or a proxy) may
 * compress anyway. Decoded up to `maxBytes`; a coding not known here is an error.
 */
export function decodeBody(body: Buffer, coding: string | undefined, maxBytes: number, what: string): Buffer {
  const codings = (coding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  let decoded = body;
  // Applied in the order listed, so undone in reverse.
  for (const name of codings.reverse()) {
    const options = { maxOutputLength: maxBytes };
    try {
      if (name === 'gzip' || name === 'x-gzip') decoded = gunzipSync(decoded, options);
      else if (name === 'br') decoded = brotliDecompressSync(decoded, options);
      else if (name === 'deflate') {
        // Meant as zlib-wrapped; some servers send it raw.
        try {
          decoded = inflateSync(decoded, options);
        } catch {
          decoded = inflateRawSync(decoded, options);
        }
      } else throw new DataError(`${what} returned a body in an encoding docpipe cannot read (content-encoding: ${name})`);
    } catch (error) {
      if (error instanceof DataError) throw error;
      const tooLarge = error instanceof RangeError || (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
      throw new DataError(
        tooLarge
          ? `${what} returned a ${name} body larger than ${sizeName(maxBytes)} once decoded; not read`
          : `${what} returned a body that is not valid ${name} (content-encoding: ${name})`,
        { cause: error },
      );
    }
  }
  return decoded;
}

const sizeName = (bytes: number): string => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${bytes} bytes`);

const NOT_SENT = Symbol('not sent');

/** The most of an error answer's body read (its message is shown cut to a line anyway). */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * Whether a transport error came before any byte of the request could go out: the connection
 * (and for https its TLS handshake) never completed. Such a request reached no server, so it
 * created nothing, whatever the error's code (a certificate refused, https spoken to an http
 * server, a reset during the handshake).
 */
export function sentNothing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { [NOT_SENT]?: boolean })[NOT_SENT] === true;
}

/**
 * How long a kept-alive socket may stay idle before it is closed: a run's sockets do not
 * outlive it for as long as a server would keep them (a service that runs exports all day
 * would gather them), and none is reused just as a server closes it (Node's own servers close
 * idle ones after 5 s). Requests that follow each other, as a walk's do, keep theirs.
 */
export const IDLE_SOCKET_MS = 4_000;

/** A transport with its own keep-alive agents (idle sockets do not hold the process open). */
export function createNodeTransport(maxSockets = 8, maxBodyBytes = MAX_BODY_BYTES, idleSocketMs = IDLE_SOCKET_MS): Transport {
  // An agent's timeout closes a socket that sits idle in its pool that long.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets, timeout: idleSocketMs }),
    'https:': new https.Agent({ keepAlive: true, maxSockets, timeout: idleSocketMs }),
  };
  return (url, request) =>
    new Promise<TransportResponse>((resolve, reject) => {
      const isHttps = url.protocol === 'https:';
      const headers = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
      const options = { method: request.method, headers, agent: isHttps ? agents['https:'] : agents['http:'], signal: request.signal };
      const onResponse = (response: http.IncomingMessage): void => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        let settled = false;
        const status = response.statusCode ?? 0;
        // An error answer's body only says why (a message of a line): what it says past its
        // start is not read, and an error answer stays that error (a 429 keeps its Retry-After).
        const failed = status < 200 || status > 299;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes <= (failed ? ERROR_BODY_BYTES : maxBodyBytes)) return void chunks.push(chunk);
          if (failed) {
            chunks.push(chunk);
            response.destroy();
            return void finish();
          }
          settled = true; // the close that follows is not an early end
          chunks.length = 0;
          response.destroy();
          reject(new DataError(`${request.method} ${url.pathname}${url.search} returned a body larger than ${sizeName(maxBodyBytes)}; not read`));
        });
        const finish = (): void => {
          if (settled) return;
          settled = true;
          const headers = response.headers;
          try {
            const header = (name: string): string | undefined => {
              const value = headers[name.toLowerCase()];
              return Array.isArray(value) ? value[0] : value;
            };
            const raw = Buffer.concat(chunks);
            const ok = !failed;
            const what = `${request.method} ${url.pathname}${url.search}`;
            // The status decides first: an error answer (a 429's empty body marked gzip) whose
            // body cannot be decoded is still that error, with its body as sent.
            let body: Buffer;
            try {
              body = raw.length === 0 ? raw : decodeBody(raw, header('content-encoding'), maxBodyBytes, what);
            } catch (error) {
              if (ok) throw error;
              body = raw;
            }
            resolve({ status, header, text: bodyText(body, header('content-type'), ok, what) });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        };
        response.on('end', finish);
        response.on('error', reject);
        response.on('close', () => {
          if (!settled) reject(responseClosedEarly());
        });
      };
      const req = isHttps ? https.request(url, options, onResponse) : http.request(url, options, onResponse);
      // The request goes out once its socket is connected (for https, once the handshake is
      // done). A socket still connecting when it is handed over says so; one reused from the
      // pool, or one whose TCP connection is up but whose handshake may not be, is taken for
      // connected: an error on it may have come after the request went out.
      let connected = false;
      req.on('socket', (socket) => {
        if (!socket.connecting) {
          connected = true;
          return;
        }
        socket.once(isHttps ? 'secureConnect' : 'connect', () => {
          connected = true;
        });
      });
      req.on('error', (error: Error) => {
        if (!connected) Object.assign(error, { [NOT_SENT]: true });
        reject(error);
      });
      req.end(request.body);
    });
}
