// Natural-looking filler from a seeded generator (docs/method.md "Prompts"). Paragraphs are generated once per
// seed into a pool; a prompt is a seeded permutation of pool paragraphs joined once, so a 1M-token prompt
// costs one array join instead of millions of string concatenations.
import { createRng, type Rng } from './rng.js';
import { ADJECTIVES, ADVERBS, CONNECTORS, NAMES, NOUNS, PREPOSITIONS, VERBS } from './words.js';

const POOL_PARAGRAPHS = 1024;

const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function nounPhrase(rng: Rng): string {
  return rng() < 0.6 ? `the ${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)}` : `the ${pick(rng, NOUNS)}`;
}

function sentence(rng: Rng): string {
  const name = pick(rng, NAMES);
  switch (Math.floor(rng() * 6)) {
    case 0:
      return `${cap(nounPhrase(rng))} ${pick(rng, VERBS)} ${nounPhrase(rng)} ${pick(rng, PREPOSITIONS)} ${nounPhrase(rng)}.`;
    case 1:
      return `${name} ${pick(rng, ADVERBS)} ${pick(rng, VERBS)} ${nounPhrase(rng)}, and nobody asked why.`;
    case 2:
      return `${pick(rng, CONNECTORS)} ${name} ${pick(rng, VERBS)} ${nounPhrase(rng)} ${pick(rng, PREPOSITIONS)} ${nounPhrase(rng)}.`;
    case 3:
      return `"Have you seen ${nounPhrase(rng)}?" ${name} asked, and ${pick(rng, NAMES)} ${pick(rng, ADVERBS)} ${pick(rng, VERBS)} ${nounPhrase(rng)}.`;
    case 4:
      return `There was ${rng() < 0.5 ? 'a' : 'one'} ${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)} ${pick(rng, PREPOSITIONS)} ${nounPhrase(rng)}, ${pick(rng, ADJECTIVES)} and ${pick(rng, ADJECTIVES)}.`;
    default:
      return `When ${nounPhrase(rng)} was ${pick(rng, ADJECTIVES)}, ${name} ${pick(rng, VERBS)} ${nounPhrase(rng)} ${pick(rng, ADVERBS)}.`;
  }
}

function paragraph(rng: Rng): string {
  const n = 4 + Math.floor(rng() * 5);
  const s: string[] = [];
  for (let i = 0; i < n; i++) s.push(sentence(rng));
  return s.join(' ');
}

const pools = new Map<number, string[]>();

/** The paragraph pool of a seed (about 0.5 MB, built once per seed). */
export function paragraphPool(seed: number): string[] {
  let p = pools.get(seed);
  if (!p) {
    const rng = createRng(seed ^ 0x5eed);
    p = Array.from({ length: POOL_PARAGRAPHS }, () => paragraph(rng));
    pools.set(seed, p);
  }
  return p;
}

/** At least `chars` characters of filler, cut at a word boundary, in an order drawn from `rng`. */
export function filler(seed: number, rng: Rng, chars: number): string {
  if (chars <= 0) return '';
  const pool = paragraphPool(seed);
  const parts: string[] = [];
  let len = 0;
  while (len < chars + 64) {
    const p = pool[Math.floor(rng() * pool.length)]!;
    parts.push(p);
    len += p.length + 2;
  }
  const text = parts.join('\n\n');
  const cut = text.lastIndexOf(' ', chars);
  return text.slice(0, cut > chars / 2 ? cut : chars);
}
