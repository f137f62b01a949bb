import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DATA_FILES, dataPath } from '../../ingest/reference/data-files.ts';

const files = Object.values(DATA_FILES);

describe('classifier data files', () => {
  it.each(files.map((f) => [f.file, f.sha256]))('%s has the bytes it was copied with', (file, sha256) => {
    expect(
      createHash('sha256')
        .update(readFileSync(dataPath(file)))
        .digest('hex'),
    ).toBe(sha256);
  });

  it('holds only the files in use, each described in data/SOURCES.md', () => {
    const sources = readFileSync(dataPath('SOURCES.md'), 'utf8');
    const listed = new Set(files.map((f) => f.file));
    const present = readdirSync(dataPath('')).filter((f) => f !== 'SOURCES.md');
    expect(present.sort()).toEqual([...listed].sort());
    for (const f of files) {
      expect(sources).toContain(`\`${f.file}\``);
      expect(f.source).not.toBe('');
      expect(f.licence).not.toBe('');
    }
  });
});
