import { describe, expect, it } from 'vitest';
import { agentIndexOf, agentRole } from '../../src/cli/agents.js';
import { withDefaults, type Options } from '../../src/config/options.js';

// Which agent a process is (docs/distributed.md): the flag, else the index the scheduler gives each copy.
const opts = (o: Partial<Options<'run'>>): Options<'run'> => withDefaults<'run', Options<'run'>>('run', o);

describe('agent role', () => {
  it('reads the index from --agent-index, a Kubernetes Indexed Job or a Slurm array', () => {
    expect(agentIndexOf({}, {})).toBe(0);
    expect(agentIndexOf({}, { JOB_COMPLETION_INDEX: '3' })).toBe(3);
    expect(agentIndexOf({}, { SLURM_ARRAY_TASK_ID: '2' })).toBe(2);
    expect(agentIndexOf({ agentIndex: 1 }, { JOB_COMPLETION_INDEX: '3' })).toBe(1);
    expect(() => agentIndexOf({}, { JOB_COMPLETION_INDEX: 'x' })).toThrow(
      /JOB_COMPLETION_INDEX=x is not an agent index/,
    );
  });

  it('coordinates at index 0, serves at 1..K-1, refuses what cannot work', () => {
    const url = 'http://bench-0.bench:7070';
    expect(agentRole(opts({}), {})).toEqual({ role: 'single' });
    expect(agentRole(opts({ agents: 1, local: true }), {})).toEqual({ role: 'single' });
    expect(agentRole(opts({ agents: 4, coordinator: url }), {})).toEqual({
      role: 'coordinator',
      agents: 4,
      local: false,
    });
    expect(agentRole(opts({ agents: 4, coordinator: url }), { JOB_COMPLETION_INDEX: '2' })).toEqual({
      role: 'agent',
      agents: 4,
      index: 2,
      coordinator: url,
    });
    expect(agentRole(opts({ agents: 4, local: true }), {})).toMatchObject({
      role: 'coordinator',
      local: true,
    });
    expect(() => agentRole(opts({ agents: 4 }), {})).toThrow(/listens for the others on --coordinator/);
    expect(() => agentRole(opts({ agents: 4, coordinator: url }), { SLURM_ARRAY_TASK_ID: '4' })).toThrow(
      /agent index 4 is not one of 0\.\.3/,
    );
    expect(() => agentRole(opts({ agents: 2, agentIndex: 1 }), {})).toThrow(/needs --coordinator/);
    expect(() => agentRole(opts({ agentIndex: 1 }), {})).toThrow(/--agent-index needs --agents/);
  });
});
