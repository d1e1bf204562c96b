import { BenchError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { OLLAMA_ENV } from '../engines/ollama.js';
import { shellQuote } from '../target/launch-command.js';
import { redactCommandLine, shellWords } from '../target/redact.js';
import { normalName } from './link-vars.js';
import type { ParamSet, ParamValue } from './params.js';

// The server command of one configuration (docs/sweep.md "The server command"): `{name}` in --serve-cmd takes
// the configuration's value of that flag (shell-quoted), `{port}` the port the sweep picked, `{api_key}` the
// API key; every flag the template does not name is appended as `--flag value` (`-np` as written; true: the
// flag alone; false: left out), as vLLM's own sweep does.

export interface ServerCommand {
  command: string; // what /bin/sh -c runs
  env: Record<string, string>; // added to the sweep's environment
  shown: string; // ENV=... command, redacted: what results, logs and the terminal show
}

const PLACEHOLDER = /\{([A-Za-z_][\w.-]*)\}/g;
const RESERVED = new Set(['port', 'api_key']);

const asWord = (v: ParamValue): string => shellQuote(Array.isArray(v) ? v.join(',') : String(v));

function flagOf(key: string): string {
  return key.startsWith('-') ? key : `--${key.replace(/_/g, '-')}`;
}

// The placeholders of a template, each matched to a configuration key (exact, or by normal name).
function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

function keyFor(set: ParamSet, name: string): string | undefined {
  if (name in set.params) return name;
  return Object.keys(set.params).find((k) => normalName(k) === normalName(name));
}

export function buildCommand(
  template: string,
  set: ParamSet,
  port: number | '{port}', // '{port}' as written: --dry-run
  apiKey: string | undefined,
): ServerCommand {
  const used = new Set<string>();
  const fill = (text: string, quote: boolean) =>
    text.replace(PLACEHOLDER, (_whole, name: string) => {
      if (name === 'port') return String(port);
      if (name === 'api_key') {
        if (apiKey === undefined)
          throw new BenchError('USAGE', '--serve-cmd uses {api_key}, and no API key is given.', {
            hint: 'Pass --api-key, --api-key-file or OPENAI_API_KEY.',
          });
        return quote ? shellQuote(apiKey) : apiKey;
      }
      const key = keyFor(set, name);
      if (key === undefined) throw missingValue(name, set);
      used.add(key);
      const v = set.params[key]!;
      return quote ? asWord(v) : Array.isArray(v) ? v.join(',') : String(v);
    });
  const command = fill(template, true);
  const env = Object.fromEntries(Object.entries(set.env).map(([k, v]) => [k, fill(v, false)]));
  const appended = Object.entries(set.params)
    .filter(([k, v]) => !used.has(k) && v !== false)
    .map(([k, v]) => (v === true ? flagOf(k) : `${flagOf(k)} ${asWord(v)}`));
  const full = [command, ...appended].join(' ');
  const envWords = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  const raw = [...envWords, full].join(' ');
  const shown = redactCommandLine(raw);
  registerRedacted(raw, shown);
  return { command: full, env, shown };
}

const missingValue = (name: string, set: ParamSet): BenchError =>
  new BenchError(
    'CONFIG_INVALID',
    `--serve-cmd uses {${name}}, which the configuration "${set.name}" does not set.`,
    { hint: `Set ${name} in every configuration of --serve-params, or take {${name}} out.` },
  );

// Whatever the redaction hid is a secret of this run: a server that echoes its flags (vLLM logs every
// non-default argument) must not carry it into the server log.
export function registerRedacted(raw: string, redacted: string): void {
  const a = shellWords(raw);
  const b = shellWords(redacted);
  if (a.length !== b.length) return;
  a.forEach((w, i) => {
    const r = b[i]!.text;
    if (w.text === r) return;
    const parts = r.split('<redacted>');
    let pos = parts[0]!.length;
    for (let k = 1; k < parts.length; k++) {
      const next = parts[k]!;
      const end = next === '' ? (k === parts.length - 1 ? w.text.length : pos) : w.text.indexOf(next, pos);
      if (end < pos) return;
      const secret = w.text.slice(pos, end);
      registerSecret(secret);
      registerSecret(secret.replace(/^(['"])([\s\S]*)\1$/, '$2'));
      pos = end + next.length;
    }
  });
}

// The template as sweep.json keeps it: secrets redacted, its placeholders not ({api_key} after --api-key is a
// name, not a key), so --resume can run it again.
export function redactTemplate(template: string): string {
  const redacted = redactCommandLine(template);
  const a = shellWords(template);
  const b = shellWords(redacted);
  if (a.length !== b.length) return redacted;
  let out = redacted;
  for (let i = b.length - 1; i >= 0; i--) {
    const raw = a[i]!.text;
    const bare = (w: string) => w.replace(/['"]/g, '');
    if (raw !== b[i]!.text && bare(raw.replace(PLACEHOLDER, '<redacted>')) === bare(b[i]!.text))
      out = out.slice(0, b[i]!.start) + raw + out.slice(b[i]!.end);
  }
  return out;
}

// Placeholders no configuration can fill, said before anything starts (a typo in --serve-cmd).
export function checkTemplate(template: string, sets: readonly ParamSet[]): void {
  for (const name of placeholders(template)) {
    if (RESERVED.has(name)) continue;
    const missing = sets.find((s) => keyFor(s, name) === undefined);
    if (missing) throw missingValue(name, missing);
  }
  const portIn = (t: string) => placeholders(t).includes('port');
  if (!portIn(template) && !sets.every((s) => Object.values(s.env).some(portIn)))
    throw new BenchError('USAGE', '--serve-cmd has no {port}: the sweep picks a free port per server.', {
      hint: `Put {port} where the server takes its port, e.g. --port {port} (or ${OLLAMA_ENV.host}: 127.0.0.1:{port} in env).`,
    });
}
