import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./wallet-child.ts', import.meta.url));

export interface ChildHandle {
  proc: ChildProcess;
  lines: string[];
  /** Resolves when the child has printed a line starting with `prefix`. */
  waitFor(prefix: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

export function spawnWalletChild(options: Record<string, unknown>): ChildHandle {
  return spawnTsChild(CHILD, [JSON.stringify(options)]);
}

/** A TypeScript file run in a real child process (through tsx), its stdout collected line by line. */
export function spawnTsChild(file: string, args: string[], env?: NodeJS.ProcessEnv): ChildHandle {
  const proc = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env && { env }),
  });
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: () => void }[] = [];
  let buf = '';
  let err = '';
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      for (const w of waiters.splice(0)) {
        if (line.startsWith(w.prefix)) w.resolve();
        else waiters.push(w);
      }
    }
  });
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close' fires after 'exit' and after stdout is drained, so every line the child wrote is in `lines`.
    proc.on('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    proc,
    lines,
    exited,
    stderr: () => err,
    waitFor: (prefix) =>
      lines.some((l) => l.startsWith(prefix))
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push({ prefix, resolve });
            void exited.then(() => reject(new Error(`child exited before "${prefix}": ${err}`)));
          }),
  };
}
