import type { TestProject } from 'vitest/node';
import { missingTools, missingToolsWarning } from './tools.ts';

/**
 * Runs first: under CI a missing PostgreSQL, Chromium or rsync fails the run here, before any test starts.
 * Elsewhere the tests that need it skip, and the run says so at its start and again at its end. Every test
 * file learns what is missing as `inject('missingTools')`.
 */
export default function setup(project: TestProject): () => void {
  const warning = missingToolsWarning();
  project.provide('missingTools', missingTools());
  if (!warning) return () => {};
  console.warn(`\n${warning}\n`);
  return () => console.warn(`\n${warning}\n`);
}
