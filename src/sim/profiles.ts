import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { BenchError } from '../errors.js';
import { fsError } from '../fs-errors.js';
import { ProfileSchema, type Profile, type ProfileInput } from './profile-schema.js';
import { yamlProblem } from '../yaml-error.js';

// profiles/ at the package root, from src/sim (tsx) and dist/sim (built) alike.
export const PROFILES_DIR = fileURLToPath(new URL('../../profiles/', import.meta.url));

export function listProfiles(): string[] {
  if (!existsSync(PROFILES_DIR)) return [];
  return readdirSync(PROFILES_DIR)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .map((f) => f.replace(/\.(ya?ml|json)$/, ''))
    .sort();
}

function readProfileFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw fsError('CONFIG_INVALID', `cannot read the profile ${path}`, e);
  }
  try {
    return path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new BenchError(
      'CONFIG_INVALID',
      `profile ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${yamlProblem(e, text)}`,
    );
  }
}

// A name with a slash or a profile's file extension is a path (a twin fit wrote): never a shipped profile's name.
const looksLikePath = (s: string): boolean => s.includes('/') || /\.(ya?ml|json)$/.test(s);

function findProfile(nameOrPath: string): string {
  if (looksLikePath(nameOrPath)) return nameOrPath; // readProfileFile says why it cannot be read
  for (const ext of ['.yaml', '.yml', '.json']) {
    const p = PROFILES_DIR + nameOrPath + ext;
    if (existsSync(p)) return p;
  }
  throw new BenchError('CONFIG_INVALID', `unknown sim profile "${nameOrPath}"`, {
    hint: `Use one of: ${listProfiles().join(', ')}, or a path to a .yaml/.json profile file.`,
  });
}

export function validateProfile(raw: unknown, where: string): Profile {
  const r = ProfileSchema.safeParse(raw);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new BenchError('CONFIG_INVALID', `invalid sim profile ${where}: ${issues}`);
  }
  // llama.cpp caps a slot at what its KV holds, so there -c may be below the model's context.
  if (r.data.flavor !== 'llamacpp' && r.data.kvCapacityTokens < r.data.maxModelLen) {
    throw new BenchError(
      'CONFIG_INVALID',
      `invalid sim profile ${where}: kvCapacityTokens (${r.data.kvCapacityTokens}) must hold one maxModelLen (${r.data.maxModelLen}) request`,
    );
  }
  return r.data;
}

export function loadProfile(
  profile: string | Profile | ProfileInput | undefined,
  overrides?: Partial<ProfileInput>,
): Profile {
  let raw: unknown;
  let where: string;
  if (profile === undefined || typeof profile === 'string') {
    const path = findProfile(profile ?? 'tiny');
    raw = readProfileFile(path);
    where = path;
  } else {
    raw = profile;
    where = `"${profile.name}"`;
  }
  const merged = overrides ? { ...(raw as object), ...stripUndefined(overrides) } : raw;
  return validateProfile(merged, where);
}

function stripUndefined(o: object): object {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
