import type { CountParams } from '../contract/api-schemas.ts';
import type { LoadedSnapshot } from '../engine/loaded-snapshot.ts';

/**
 * `industry_codes` of a retired edition (SN2007, SNI 2007, PKD 2007, EMTAK 2008, NACE Rev. 2: a saved query) mapped
 * forward onto the leaves the country serves today, through the same map the ingest applies to the data
 * (activities.json `forward`, docs/api-decisions.md). A code of today's edition is never in the map, so it
 * is left as sent; a code neither served nor mapped still matches nothing, as any unknown code does.
 */
export function withForwardIndustryCodes<P extends CountParams>(snap: LoadedSnapshot, params: P): P {
  const input = params.filters['industry_codes'];
  if (input?.kind !== 'list') return params;
  const forward = snap.country(params.country).activityForward;
  const values = input.values.map((v) => (typeof v === 'string' ? (forward[v] ?? v) : v));
  if (values.every((v, i) => v === input.values[i])) return params;
  return {
    ...params,
    filters: { ...params.filters, industry_codes: { kind: 'list', values: [...new Set(values)] } },
  };
}
