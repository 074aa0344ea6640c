/**
 * The transport under the HTTP client: node:http(s) with keep-alive connections. Much lighter
 * on the CPU than fetch, which matters when a run parses thousands of pages while DuckDB
 * loads on the other core. It only moves bytes; statuses and retries are the client's.
 */
import http from 'node:http';
import https from 'node:https';
function responseClosedEarly() {
    return Object.assign(new Error('the connection closed before the response ended'), { code: 'ECONNRESET' });
}
/** A transport with its own keep-alive agents (idle sockets do not hold the process open). */
export function createNodeTransport(maxSockets = 8) {
    const agents = {
        'http:': new http.Agent({ keepAlive: true, maxSockets }),
        'https:': new https.Agent({ keepAlive: true, maxSockets }),
    };
    return (url, request) => new Promise((resolve, reject) => {
        const isHttps = url.protocol === 'https:';
        const headers = { ...request.headers };
        if (request.body !== undefined)
            headers['content-length'] = String(Buffer.byteLength(request.body));
        const options = { method: request.method, headers, agent: isHttps ? agents['https:'] : agents['http:'], signal: request.signal };
        const onResponse = (response) => {
            const chunks = [];
            let ended = false;
            response.on('data', (chunk) => chunks.push(chunk));
            response.on('end', () => {
                ended = true;
                const raw = response.headers;
                resolve({
                    status: response.statusCode ?? 0,
                    header: (name) => {
                        const value = raw[name.toLowerCase()];
                        return Array.isArray(value) ? value[0] : value;
                    },
                    text: Buffer.concat(chunks).toString('utf8'),
                });
            });
            response.on('error', reject);
            response.on('close', () => {
                if (!ended)
                    reject(responseClosedEarly());
            });
        };
        const req = isHttps ? https.request(url, options, onResponse) : http.request(url, options, onResponse);
        req.on('error', reject);
        req.end(request.body);
    });
}
//# sourceMappingURL=transport.js.map