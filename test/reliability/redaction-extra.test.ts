import { describe, expect, it } from 'vitest';
import { redactCommandLine } from '../../src/target/redact.js';

// Launch-command cases missing from test/target/redact.test.ts (the first two leaked before the fix).
const CASES: Array<[string, string]> = [
  ['x -H "Authorization: Basic dXNlcjpwYXNz"', 'x -H "Authorization: Basic <redacted>"'],
  ['x --secret-key=abc123 --port 1', 'x --secret-key=<redacted> --port 1'],
  ['x --private-key abc123', 'x --private-key <redacted>'],
  ['x --api_key abc123', 'x --api_key <redacted>'],
  ['x --apikey abc123', 'x --apikey <redacted>'],
  ['x --API-KEY abc123', 'x --API-KEY <redacted>'],
  ['x --api-key\tabc123', 'x --api-key\t<redacted>'],
  ['x --openai-api-key abc123', 'x --openai-api-key <redacted>'],
  ['x --access-token abc123', 'x --access-token <redacted>'],
  ['curl -H "Authorization:Bearer abc123"', 'curl -H "Authorization:Bearer <redacted>"'],
  ['NGC_API_KEY=nvapi-abc123 docker run img', 'NGC_API_KEY=<redacted> docker run img'],
  ['x --some nvapi-abcdefghijklmnopqrstuvwxyz0123', 'x --some <redacted>'],
  ['GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 run', 'GITHUB_TOKEN=<redacted> run'],
  ['x --hf-overrides \'{"api_key":"abc123"}\'', 'x --hf-overrides \'{"api_key":"<redacted>"}\''],
  // Not secrets: must stay byte for byte.
  [
    'vllm serve m --ssl-keyfile k.pem --ssl-certfile c.pem',
    'vllm serve m --ssl-keyfile k.pem --ssl-certfile c.pem',
  ],
  ['x --key-cache-dtype fp8 --keyword basic', 'x --key-cache-dtype fp8 --keyword basic'],
  ['x --auth-scheme Basic --port 8000', 'x --auth-scheme Basic --port 8000'],
];

describe('launch-command redaction: extra cases', () => {
  it.each(CASES)('%s', (input, expected) => {
    expect(redactCommandLine(input)).toBe(expected);
  });
});
