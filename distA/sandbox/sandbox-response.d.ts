export interface SandboxResponse {
    status: number;
    headers: Record<string, string>;
    body: string;
}
export declare function jsonResponse(status: number, value: unknown, headers?: Record<string, string>): SandboxResponse;
export declare function errorResponse(status: number, error: string, details?: {
    message: string;
}[]): SandboxResponse;
/** An error as a JSON body or, like some gateways, as plain text. */
export declare function faultResponse(status: number, message: string, options: {
    plainText?: boolean | undefined;
    retryAfter?: string | undefined;
}): SandboxResponse;
/** The same response cut in half: still 200 and "JSON", but no parser will accept it. */
export declare function malformedResponse(response: SandboxResponse): SandboxResponse;
export declare function serverErrorMessage(status: number): string;
/** A successful JSON object body with `patch` merged in; any other response as it was. */
export declare function patchedResponse(response: SandboxResponse, patch: Record<string, unknown>): SandboxResponse;
