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
/** A transport with its own keep-alive agents (idle sockets do not hold the process open). */
export declare function createNodeTransport(maxSockets?: number): Transport;
