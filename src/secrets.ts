// Process-wide registry of secret values (API keys) so every output path can scrub them.
// A registry rather than threading the key everywhere: error messages from libraries may echo headers.
const secrets = new Set<string>();

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join('<redacted>');
  }
  return out;
}
