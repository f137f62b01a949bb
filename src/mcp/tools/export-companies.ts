import { refineJsonFilters } from '../../contract/api-schemas.ts';
import {
  EXPORT_FORMATS,
  ExportJsonObject,
  ExportLinkDataSchema,
  toExportParams,
  type ExportLinkData,
} from '../../contract/export-schemas.ts';
import { AppError } from '../../errors/app-error.ts';
import { EXPORT_CONTENT_TYPES } from '../../services/export.ts';
import { priceFields } from '../../services/operations.ts';
import { defineTool } from '../tool.ts';
import { priceList } from './common.ts';

/**
 * The export over MCP (issue 19; docs/api-decisions.md "Export over MCP"). A tool result cannot carry a
 * file of up to a gigabyte, so the tool checks the export as the REST call would (its 422s, and its 402
 * from the balance now) and answers with the price and a short-lived signed link to the REST export,
 * which the agent or its user downloads without the API key. The download is the metered export.
 */

/** The validated arguments as the REST query string names them: arrays repeated, values as text. */
function queryParams(args: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) out.push([name, String(item)]);
  }
  return out;
}

export function exportCompaniesTool(prices: Readonly<Record<string, number>>) {
  return defineTool({
    name: 'export_companies',
    title: 'Export companies as a file (metered download link)',
    description:
      'Every company matching the filters (the search filters, sort_by/sort_dir) as one file: `format` ' +
      `(${EXPORT_FORMATS.join(', ')}) and \`max_rows\` (default 100,000). Use it when a list is too big ` +
      'to page through with search_companies. It runs nothing itself: it checks the arguments, prices ' +
      'the export (rows = min(matching, max_rows)) and returns a download `url` valid for a short time ' +
      '(`expires_at`) that needs no API key; give it to a downloader (curl, a browser). This call is free; ' +
      'the download is METERED: each download reserves rows x the row price of the country in credits ' +
      `(${priceList(prices)}), charges the rows actually sent and releases the rest. Fails with 402 now ` +
      'if the balance cannot cover it. The link cannot be changed: ask again for other filters.',
    input: ExportJsonObject.superRefine(refineJsonFilters),
    output: ExportLinkDataSchema,
    metered: false,
    async run({ ops, caller, exportLink }, args) {
      const params = toExportParams(args);
      const { data, fresh } = await ops.exportQuote(caller, params);
      if (!fresh) throw new AppError('backend_unavailable', `no live snapshot holds ${params.country}`);
      const link = exportLink(queryParams(args));
      const { quote, rows } = data;
      const structured: ExportLinkData = {
        country: params.country,
        format: params.format,
        rows,
        ...priceFields(quote),
        url: link.url,
        expires_at: link.expiresAt.toISOString(),
        data_as_of: fresh.data_as_of,
        snapshot_id: fresh.snapshot_id,
      };
      const cost = quote.waiver
        ? `free (${quote.waiver})`
        : `${quote.needed} credits (${rows} rows x ${quote.unitPrice})`;
      const filename = `regdata-${params.country}-${fresh.snapshot_id}.${params.format}`;
      return {
        structured,
        text: [
          `Export of ${rows} companies in ${params.country} as ${params.format}. Downloading it reserves ` +
            `${cost} when it starts and charges the rows sent; balance now ${quote.balance} credits. ` +
            `Data as of ${fresh.data_as_of}.`,
          `Download (no API key needed; valid until ${structured.expires_at}): ${link.url}`,
        ].join('\n'),
        links: [
          {
            type: 'resource_link',
            uri: link.url,
            name: filename,
            title: `Export of ${rows} companies in ${params.country}`,
            description: `Metered download, valid until ${structured.expires_at}; data as of ${fresh.data_as_of}`,
            mimeType: EXPORT_CONTENT_TYPES[params.format],
          },
        ],
      };
    },
  });
}
