import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtCliAndSim, folderInClone, paste, pastedProblem } from '../helpers/as-pasted.js';

// `plan --for-twin` -> the commands it prints, pasted as printed -> fit -> predict.
describe('the twin recipe runs as printed', () => {
  const sim = builtCliAndSim();

  it(
    'plan --for-twin prints runs, a fit of their folders and a predict; each runs',
    { timeout: 600_000 },
    async () => {
      const cwd = folderInClone('twin-recipe');
      const plan = await paste(
        `npx llm-inference-bench plan --for-twin --base-url ${sim().baseUrl} --duration 0.5 --max-output 256`,
        { cwd },
      );
      expect(plan.code, plan.stderr).toBe(0);
      const commands = plan.stdout
        .split('\n')
        .filter((l) => l.startsWith('  npx '))
        .map((l) => l.replace(/\s+#.*$/, '').trim());
      const verbs = commands.map((c) => c.split(' ')[2]);
      expect(verbs.slice(-2)).toEqual(['fit', 'predict']);
      expect(verbs.slice(0, -2).every((v) => v === 'run')).toBe(true);
      for (const c of commands) {
        const r = await paste(c, { cwd, waitMs: 300_000, toTheEnd: true });
        expect(pastedProblem(r)).toBeUndefined();
        expect(r.code, `${c}\n${r.stderr}`).toBe(0);
      }
      expect(existsSync(join(cwd, 'twin.yaml'))).toBe(true);
      const predicted = await paste('ls predicted-*/*/result.json predicted-*/result.json 2>/dev/null', {
        cwd,
      });
      expect(predicted.stdout.trim()).not.toBe('');
    },
  );
});
