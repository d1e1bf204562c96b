import { runFaultCase, mapLimit } from './fault-check.js';
const cases = process.argv.slice(2).map((a) => {
  const [fault, rate, params] = a.split('@');
  return { fault: fault!, rate: Number(rate), ...(params ? { params } : {}) };
});
const res = await mapLimit(cases, 2, (c) => runFaultCase(c));
for (const r of res) console.log(JSON.stringify(r));
