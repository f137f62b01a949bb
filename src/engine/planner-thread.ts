import { parentPort, workerData } from 'node:worker_threads';
import { answerTask, type Plan, type PlanTask } from './planner.ts';
import { Postings, type SharedPostings } from './postings.ts';

/**
 * A planner thread (planner-pool.ts): maps the snapshot's posting lists from the shared memory the main
 * thread read them into, and answers plan tasks one at a time, with its own cache of plans.
 */
const data = workerData as { countries: Record<string, SharedPostings> };
const postings = new Map(Object.entries(data.countries).map(([c, s]) => [c, Postings.fromShared(s)]));
const cache = new Map<string, Plan>();

parentPort!.on('message', (m: { id: number; task: PlanTask }) => {
  try {
    const p = postings.get(m.task.params.country);
    if (!p) throw new Error(`no posting lists of ${m.task.params.country}`);
    parentPort!.postMessage({ id: m.id, answer: answerTask(m.task, p, cache) });
  } catch (err) {
    parentPort!.postMessage({
      id: m.id,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
  }
});
