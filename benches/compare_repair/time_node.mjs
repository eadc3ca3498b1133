// Times JS jsonrepair (repair, then JSON.parse) per call over a batch file,
// in-process, start-up and I/O excluded; prints {"inputs", "rounds", "mean_us"}
// (fastest round). usage: node time_node.mjs BATCH_JSONL ROUNDS
import { readFileSync } from 'node:fs';
import { jsonrepair } from 'jsonrepair';

const texts = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).args);
const rounds = Number(process.argv[3]);
const repairAll = () => {
  for (const text of texts) {
    try {
      JSON.parse(jsonrepair(text));
    } catch {
      // an input it rejects still took its time
    }
  }
};
// Untimed warm-up (1 s): a few rounds leave V8 still optimising jsonrepair, so
// without it the figure is several times slower and depends on ROUNDS; a
// long-running harness calls it warm.
for (const until = Date.now() + 1000; Date.now() < until; ) repairAll();
let best = Infinity;
for (let r = 0; r < rounds; r++) {
  const start = process.hrtime.bigint();
  repairAll();
  best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e3 / texts.length);
}
console.log(JSON.stringify({ inputs: texts.length, rounds, mean_us: best }));
