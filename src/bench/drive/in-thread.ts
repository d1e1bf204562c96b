import { type Clock } from '../../clock.js';
import { setMaxListeners } from 'node:events';
import { inFlightCap } from './in-flight-cap.js';
import { planPrompts } from './plan-prompts.js';
import type { Sender, Sent } from './sender.js';
import type { DriveSpec, SessionRunner } from './runner.js';
import { runShare } from './session-loop.js';

// The sessions in this thread: one session loop each, sharing the thread's event loop and connection pool.
export function inThreadSessions(sender: Sender, clock: Clock, spec: DriveSpec): SessionRunner {
  const inflight = new AbortController();
  setMaxListeners(0, inflight.signal); // one listener per request in flight
  const sent: Sent[] = [];
  let windowOpen = false;
  let closing = false;
  let share: Promise<void> = Promise.resolve();
  return {
    async start(events, atMs) {
      setMaxListeners(0, events.early);
      const zeroMs = atMs ?? clock.now();
      share = runShare(
        {
          sender,
          clock,
          spec,
          prompts: planPrompts(sender.workerParts().prompts, spec.bank),
          inflight: inflight.signal,
          early: events.early,
          zeroMs,
          ...(spec.maxInFlight !== undefined ? { cap: inFlightCap(spec.maxInFlight) } : {}),
        },
        {
          closing: () => closing,
          windowOpen: () => windowOpen,
          onFirstToken: (session) => events.onFirstToken(session),
          onSent: (s) => sent.push(s),
          onError: (s, code) => events.onError(code ? { code, sent: s } : undefined),
        },
      );
      return zeroMs;
    },
    openWindow() {
      windowOpen = true;
    },
    close() {
      closing = true;
      inflight.abort();
    },
    async finished() {
      await share;
      return sent;
    },
  };
}
