import { redactSecrets } from '../secrets.js';

// Launch commands go into results and reports; every secret in them becomes `<redacted>` (docs/method.md
// "Metadata of a run"). Works on shell words so quoted values and `--flag=value` forms are covered.
const R = '<redacted>';

// Flag names whose value is a secret: --api-key, --hf-token, --password, --admin-api-key, --client-secret...
// Ends-with matching so --max-num-batched-tokens, --tokenizer or --ssl-keyfile stay.
const SECRET_FLAG =
  /^--?[\w-]*?(api[-_]?keys?|token|password|passwd|secret|secret[-_]?key|private[-_]?key|credentials?|auth[-_]?key|access[-_]?key)$/i;
// Environment assignments: HF_TOKEN=, OPENAI_API_KEY=, AWS_SECRET_ACCESS_KEY=, DB_PASSWORD=, MY_SECRET=...
// MAX_TOKENS or TOKENIZERS_PARALLELISM stay: the keyword must end the name (SECRET/PASSWORD anywhere).
const ENV_ASSIGN = /^([A-Za-z_][A-Za-z0-9_]*)=/;
const SECRET_ENV_NAME = /(KEYS?|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|SECRET|PASSWORD/i;

interface Word {
  text: string; // raw, with quotes
  start: number;
  end: number;
}

export function shellWords(cmd: string): Word[] {
  const words: Word[] = [];
  let i = 0;
  // Backslash-newline is a line continuation: whitespace between words, never part of one.
  const isGap = (j: number): number => {
    if (/\s/.test(cmd[j] ?? 'x')) return 1;
    if (cmd[j] === '\\' && cmd[j + 1] === '\n') return 2;
    if (cmd[j] === '\\' && cmd[j + 1] === '\r' && cmd[j + 2] === '\n') return 3;
    return 0;
  };
  while (i < cmd.length) {
    for (let g = isGap(i); g > 0 && i < cmd.length; g = isGap(i)) i += g;
    if (i >= cmd.length) break;
    const start = i;
    while (i < cmd.length && isGap(i) === 0) {
      const c = cmd[i]!;
      if (c === '\\') i += 2;
      else if (c === "'" || c === '"') {
        const close = cmd.indexOf(c, i + 1);
        i = close === -1 ? cmd.length : close + 1;
      } else i++;
    }
    const end = Math.min(i, cmd.length);
    words.push({ text: cmd.slice(start, end), start, end });
  }
  return words;
}

function unquote(s: string): string {
  return s.replace(/^(['"])([\s\S]*)\1$/, '$2');
}

function isSecretFlag(w: string): boolean {
  return SECRET_FLAG.test(w);
}

export function redactCommandLine(cmd: string): string {
  const words = shellWords(cmd);
  const out: Array<{ start: number; end: number; text: string }> = [];
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    const bare = unquote(w.text);
    const q = bare.length === w.text.length ? 0 : 1; // the whole word is quoted: '--api-key=a b'
    const eq = bare.indexOf('=');
    if (bare.startsWith('-') && eq > 0 && isSecretFlag(bare.slice(0, eq))) {
      out.push({ start: w.start + q + eq + 1, end: w.end - q, text: R });
      continue;
    }
    if (bare.startsWith('-') && eq < 0 && isSecretFlag(bare)) {
      const next = words[k + 1];
      if (next && !(next.text.startsWith('--') && next.text.length > 2)) {
        out.push({ start: next.start, end: next.end, text: R });
        k++;
      }
      continue;
    }
    const env = ENV_ASSIGN.exec(bare);
    if (env && SECRET_ENV_NAME.test(env[1]!)) {
      const valueStart = w.text.indexOf('=') + 1;
      const trailing = q === 0 && /;$/.test(w.text) ? 1 : 0; // `export HF_TOKEN=x;` keeps its `;`
      out.push({ start: w.start + valueStart, end: w.end - q - trailing, text: R });
      continue;
    }
    if (/^bearer$/i.test(bare)) {
      const next = words[k + 1];
      if (next && unquote(next.text) !== R) {
        out.push({ start: next.start, end: quotedEnd(next), text: R });
        k++;
      }
    }
  }
  let result = '';
  let pos = 0;
  for (const r of out.sort((a, b) => a.start - b.start)) {
    result += cmd.slice(pos, r.start) + r.text;
    pos = r.end;
  }
  result += cmd.slice(pos);
  return redactInline(result);
}

// A value that ends a quoted header such as "Authorization: Bearer abc" keeps its closing quote.
function quotedEnd(w: Word): number {
  return /^[^'"]*['"]$/.test(w.text) ? w.end - 1 : w.end;
}

// Secrets inside words: quoted headers, inline JSON, URLs with credentials, well-known token shapes.
function redactInline(s: string): string {
  return redactSecrets(
    s
      .replace(/(Bearer\s+)(?!<redacted>)[^\s'"]+/gi, `$1${R}`)
      .replace(/(Authorization:\s*Basic\s+)(?!<redacted>)[^\s'"]+/gi, `$1${R}`)
      .replace(/((?:x-)?api-key:\s*)(?!<redacted>)[^\s'"]+/gi, `$1${R}`)
      .replace(
        /("[\w-]*(?:api[_-]?key|token|password|secret)"\s*:\s*")((?:[^"\\]|\\.)*)(")/gi,
        (_m, a: string, _v: string, c: string) => `${a}${R}${c}`,
      )
      .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]+:)([^\s@/'"]+)(@)/gi, `$1${R}$3`)
      .replace(
        /\b(sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|nvapi-[A-Za-z0-9_-]{16,})\b/g,
        R,
      ),
  );
}
