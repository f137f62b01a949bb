import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * A real `regdata serve` process, configured only by its environment, as an operator's unit runs it. Used
 * by the replica tests (test/http/replicas.test.ts, test/http/cluster.test.ts), which start several on one
 * data folder and kill them.
 */
export const REGDATA_BIN = fileURLToPath(new URL('../../../bin/regdata.mjs', import.meta.url));

export interface Replica {
  proc: ChildProcess;
  /** http://127.0.0.1:<port> */
  url: string;
  stderr: () => string;
}

/** Starts `regdata serve` and resolves once it prints the address it serves. */
export function startReplica(env: NodeJS.ProcessEnv): Promise<Replica> {
  const proc = spawn(process.execPath, [REGDATA_BIN, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    proc.stderr!.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      const m = /regdata serving (http:\/\/\S+)/.exec(stderr);
      if (m) resolve({ proc, url: m[1]!, stderr: () => stderr });
    });
    proc.on('close', (code) => reject(new Error(`replica exited (${code}) before serving: ${stderr}`)));
  });
}

/** Sends the signal and waits until the process is gone (and reaped, so its pid is free). */
export function stopReplica(replica: Replica, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const { proc } = replica;
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once('close', () => resolve());
    proc.kill(signal);
  });
}
