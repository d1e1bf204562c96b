export interface SimHttpRequest {
  method: string;
  url: string; // path and query
  headers: Record<string, string | undefined>; // lower-case names
  body: string;
  arrivalMs: number;
}

export interface SimHttpResponse {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export const jsonResponse = (status: number, v: unknown): SimHttpResponse => ({
  status,
  body: JSON.stringify(v),
  contentType: 'application/json',
});
