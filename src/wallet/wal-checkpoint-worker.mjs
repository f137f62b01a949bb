// The wallet's checkpoint thread (wal-checkpointer.ts): its own connection to the wallet file, which copies
// the WAL back into the database while the event loop goes on. Plain JavaScript: it needs no code of ours,
// so it runs the same from the source tree and from dist/.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.dbPath);
db.pragma('busy_timeout = 5000');
// FULL: the WAL is synced before its frames are copied and the database after, as the server's own
// connection would have done at an automatic checkpoint.
db.pragma('synchronous = FULL');

parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    // PASSIVE: never waits for a writer or a reader. Frames a reader still needs stay for the next round.
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
