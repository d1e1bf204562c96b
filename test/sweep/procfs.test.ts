import { describe, expect, it } from 'vitest';
import { environHas, groupMembers, MARKER_ENV, parseStat, recordedGroup } from '../../src/sweep/procfs.js';
import { fakeFs, stat } from './helpers.js';

describe('procfs', () => {
  it('reads a stat line whose command name holds spaces and parentheses', () => {
    expect(parseStat(stat(4242, 'vllm (engine) core', 'S', 1, 4240, 987654))).toEqual({
      pid: 4242,
      state: 'S',
      ppid: 1,
      pgrp: 4240,
      startTicks: 987654,
    });
    expect(parseStat('garbage')).toBeUndefined();
    expect(parseStat('12 (x) S 1')).toBeUndefined();
  });

  it('counts the live processes of a group, not its zombies or other groups', () => {
    const fs = fakeFs([
      { stat: stat(100, 'sh', 'S', 1, 100, 5) },
      { stat: stat(101, 'python3', 'R', 100, 100, 6) },
      { stat: stat(102, 'defunct', 'Z', 100, 100, 7) },
      { stat: stat(200, 'other', 'S', 1, 200, 8) },
    ]);
    expect(groupMembers(fs, 100).map((p) => p.pid)).toEqual([100, 101]);
  });

  it('signals a recorded group only while it still carries its launch marker or start time', () => {
    const mark = `${MARKER_ENV}=abc123`;
    const live = fakeFs([
      { stat: stat(300, 'python3', 'S', 1, 300, 42), environ: `PATH=/bin\0${mark}\0` },
      { stat: stat(301, 'worker', 'S', 300, 300, 43), environ: `${mark}\0` },
    ]);
    expect(recordedGroup(live, { pid: 300, startTicks: 42, marker: 'abc123' }).map((p) => p.pid)).toEqual([
      300, 301,
    ]);
    // the leader cleared its environment: its start time still ties it to the launch
    const cleared = fakeFs([{ stat: stat(300, 'server', 'S', 1, 300, 42), environ: '' }]);
    expect(recordedGroup(cleared, { pid: 300, startTicks: 42, marker: 'abc123' })).toHaveLength(1);
    // the pid was reused by a stranger: another start time, no marker
    const reused = fakeFs([{ stat: stat(300, 'bash', 'S', 1, 300, 99), environ: 'PATH=/bin\0' }]);
    expect(recordedGroup(reused, { pid: 300, startTicks: 42, marker: 'abc123' })).toEqual([]);
    expect(environHas(`A=1\0${MARKER_ENV}=abc1234\0`, MARKER_ENV, 'abc123')).toBe(false);
  });
});
