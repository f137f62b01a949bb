import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixtureIngest } from './helpers/fixture-ingest.ts';

/*
 * LT fields taken from whichever file carries them (test/fixtures/official/LT, hand-made): the legal form
 * when JAR leaves it empty, and the VAT state, which only VMI publishes.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/official/LT/', import.meta.url));
const { scratch, ingest, companies } = fixtureIngest('lt');

function copy(edit: (dir: string) => void): string {
  const dir = scratch('from');
  fs.cpSync(FIXTURES, dir, { recursive: true });
  edit(dir);
  return dir;
}

describe('LT legal form from whichever file has it', () => {
  it('takes the code from the latest statement, else from the code the files pair with the text form', async () => {
    const from = copy((d) => {
      const file = path.join(d, 'JAR_IREGISTRUOTI.csv');
      const text = fs
        .readFileSync(file, 'utf8')
        // Three rows lose their code: 110003978 has statements (PLNA 2024, form 310); 305555555 has none but
        // its text form is paired with 310 by other rows; 303333333's text form is paired with no code.
        .replace('|1991-04-25|310|Uždaroji akcinė bendrovė|', '|1991-04-25||Uždaroji akcinė bendrovė|')
        .replace('|2003-03-03|310|Uždaroji akcinė bendrovė|', '|2003-03-03||Uždaroji akcinė bendrovė|')
        .replace('|2001-01-01|320|Akcinė bendrovė|', '|2001-01-01||Akcinė bendrovė|');
      fs.writeFileSync(file, text);
    });
    const c = await companies((await ingest('LT', from)).dir);
    // From its own statement.
    expect(c.get('110003978')).toMatchObject({
      oiguslik_vorm: '310',
      oiguslik_vorm_tekstina: 'Uždaroji akcinė bendrovė',
    });
    // No statement: the text form, which 301011561's JAR row pairs with 310.
    expect(c.get('305555555')).toMatchObject({
      oiguslik_vorm: '310',
      oiguslik_vorm_tekstina: 'Uždaroji akcinė bendrovė',
    });
    // A text form no file pairs with a code: no code is made up.
    expect(c.get('303333333')).toMatchObject({
      oiguslik_vorm: null,
      oiguslik_vorm_tekstina: 'Akcinė bendrovė',
    });
  }, 60_000);
});

describe('LT from JAR alone', () => {
  it('leaves VAT, activities, employees and turnover unknown rather than false or zero', async () => {
    const from = copy((d) => {
      for (const f of fs.readdirSync(d)) if (f !== 'JAR_IREGISTRUOTI.csv') fs.rmSync(path.join(d, f));
    });
    const { dir, report } = await ingest('LT', from);
    const c = await companies(dir);
    expect([...c.keys()].sort()).toEqual([
      '110003978',
      '301011561',
      '302222222',
      '303333333',
      '304444444',
      '305555555',
    ]);
    for (const row of c.values()) {
      expect(row).toMatchObject({
        vat_active: null,
        vat_number: null,
        emtak: [],
        last_quarter_employees_number: null,
        annual_revenue: null,
      });
    }
    expect(report.missing.map((m) => m.key).sort()).toEqual(['plna', 'sodra', 'vmiRegister', 'vmiTaxes']);
  }, 60_000);
});
