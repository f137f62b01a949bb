import fs from 'node:fs';

/** SCHED_IDLE's number in a thread's stat (field 41); 0 is the ordinary SCHED_OTHER. */
export const SCHED_IDLE = 5;

export interface ThreadStat {
  tid: number;
  /** Field 19. */
  nice: number;
  /** Field 41, the scheduling policy. */
  policy: number;
}

/**
 * Each thread of process `pid` as the kernel holds it (/proc/<pid>/task/<tid>/stat), so tests of thread
 * priorities read what was set rather than take the setter's word for it. A thread that ends between the
 * listing and its read is left out.
 */
export function threadStats(pid: number | 'self'): ThreadStat[] {
  const out: ThreadStat[] = [];
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The name (field 2) may hold spaces and parentheses: the fields after it start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.push({ tid: Number(tid), nice: Number(fields[19 - 3]), policy: Number(fields[41 - 3]) });
  }
  return out;
}
