/**
 * A response the sandbox has decided on but not yet written, so faults can replace it,
 * truncate it or drop it. The error bodies are the API's: `{error, details?}`.
 */
import { STATUS_CODES } from 'node:http';
const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
export function jsonResponse(status, value, headers = {}) {
    return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(value) };
}
export function errorResponse(status, error, details) {
    return jsonResponse(status, details === undefined ? { error } : { error, details });
}
/** An error as a JSON body or, like some gateways, as plain text. */
export function faultResponse(status, message, options) {
    const headers = options.retryAfter === undefined ? {} : { 'retry-after': options.retryAfter };
    if (options.plainText)
        return { status, headers: { 'content-type': TEXT_TYPE, ...headers }, body: message };
    return jsonResponse(status, { error: message }, headers);
}
/** The same response cut in half: still 200 and "JSON", but no parser will accept it. */
export function malformedResponse(response) {
    const body = response.body.length > 1 ? response.body.slice(0, Math.floor(response.body.length / 2)) : '{"';
    return { status: 200, headers: { 'content-type': JSON_TYPE }, body };
}
export function serverErrorMessage(status) {
    if (status === 502)
        return 'Bad gateway';
    if (status === 503)
        return 'Service unavailable';
    if (status === 504)
        return 'Gateway timeout';
    // A fault may answer with a client error too (401, 403, 404): say what it is, in the same case.
    const reason = status >= 400 && status < 500 ? STATUS_CODES[status] : undefined;
    return reason ? reason.charAt(0) + reason.slice(1).toLowerCase() : 'Internal server error';
}
/** A successful JSON object body with `patch` merged in; any other response as it was. */
export function patchedResponse(response, patch) {
    if (response.status < 200 || response.status > 299)
        return response;
    const value = JSON.parse(response.body);
    if (value === null || typeof value !== 'object' || Array.isArray(value))
        return response;
    return { ...response, body: JSON.stringify({ ...value, ...patch }) };
}
//# sourceMappingURL=sandbox-response.js.map