/**
 * The transport under the HTTP client: node:http(s) with keep-alive connections. Much lighter
 * on the CPU than fetch, which matters when a run parses thousands of pages while DuckDB
 * loads on the other core. It only moves bytes; statuses and retries are the client's.
 */
import http from 'node:http';
import https from 'node:https';
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

/** A transport with its own keep-alive agents (idle sockets do not hold the process open). */
export function createNodeTransport(maxSockets = 8, maxBodyBytes = MAX_BODY_BYTES): Transport {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets }),
    'https:': new https.Agent({ keepAlive: true, maxSockets }),
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
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes <= maxBodyBytes) return void chunks.push(chunk);
          settled = true; // the close that follows is not an early end
          chunks.length = 0;
          response.destroy();
          const cap = maxBodyBytes >= 1024 * 1024 ? `${Math.round(maxBodyBytes / 1024 / 1024)} MiB` : `${maxBodyBytes} bytes`;
          reject(new DataError(`${request.method} ${url.pathname}${url.search} returned a body larger than ${cap}; not read`));
        });
        response.on('end', () => {
          settled = true;
          const raw = response.headers;
          try {
            resolve({
              status: response.statusCode ?? 0,
              header: (name) => {
                const value = raw[name.toLowerCase()];
                return Array.isArray(value) ? value[0] : value;
              },
              text: Buffer.concat(chunks).toString('utf8'),
            });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        response.on('error', reject);
        response.on('close', () => {
          if (!settled) reject(responseClosedEarly());
        });
      };
      const req = isHttps ? https.request(url, options, onResponse) : http.request(url, options, onResponse);
      req.on('error', reject);
      req.end(request.body);
    });
}
