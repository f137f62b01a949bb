import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * Builds one small synthetic world snapshot for the whole run, through the same publish pipeline the demo
 * and the ingest use, and hands its data folder to every test file as `inject('testDataDir')`.
 * Test files copy nothing into it: tests that write (wallets, new snapshots) use their own temp folders.
 */
export const TEST_WORLD = { scale: 0.003, seed: 7 } as const;

export default async function setup(project: TestProject): Promise<() => void> {
  // For quick runs of tests that need no world (contract, wallet): REGDATA_TEST_SKIP_WORLD=1 npx vitest run test/x
  if (process.env['REGDATA_TEST_SKIP_WORLD']) return () => {};
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-world-'));
  const { buildWorldSnapshot } = await import('../ingest/world/index.ts');
  await buildWorldSnapshot({ dataDir, scale: TEST_WORLD.scale, seed: TEST_WORLD.seed, label: 'test' });
  project.provide('testDataDir', dataDir);
  project.provide('testWorld', { ...TEST_WORLD });
  return () => fs.rmSync(dataDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    testDataDir: string;
    testWorld: { scale: number; seed: number };
  }
}
