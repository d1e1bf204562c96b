// One clock for every timestamp that crosses a module or process boundary:
// epoch ms with sub-ms precision, monotonic within a process, comparable across processes on one machine.
export const nowMs = (): number => performance.timeOrigin + performance.now();
