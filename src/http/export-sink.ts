import type { FastifyReply } from 'fastify';
import type { ExportDone } from '../services/operations.ts';
import type { ExportHead, ExportSink } from '../services/export.ts';
import { rateLimitHeaders } from '../wallet/rate-limiter.ts';
import { DATA_AS_OF_HEADER } from './guard.ts';

/** The trailer that carries an export's usage meta (CSV, Parquet): the `meta` object as JSON. */
export const META_TRAILER = 'regdata-meta';

/**
 * An export's response on the raw connection. Until `start` nothing is sent, so a 402 or 422 before it is
 * an ordinary error answer; from `start` on the reply is taken over from fastify (hijacked): status 200,
 * the headers fastify had set (request id, security headers), chunked body, and the meta at the end:
 * a trailer for CSV and Parquet, whose bodies must stay valid files, a last line for NDJSON.
 */
export class HttpExportSink implements ExportSink {
  private started = false;
  private format: ExportHead['format'] = 'csv';

  constructor(private readonly reply: FastifyReply) {}

  get hasStarted(): boolean {
    return this.started;
  }

  private get gone(): boolean {
    const res = this.reply.raw;
    return res.destroyed || res.socket === null || res.socket.destroyed;
  }

  start(head: ExportHead): void {
    if (this.started) return;
    this.started = true;
    this.format = head.format;
    const headers: Record<string, string | number | string[]> = {};
    for (const [name, value] of Object.entries(this.reply.getHeaders())) {
      if (value !== undefined) headers[name] = value;
    }
    Object.assign(headers, head.rate ? rateLimitHeaders(head.rate) : {}, {
      [DATA_AS_OF_HEADER]: head.fresh.data_as_of,
      'content-type': head.contentType,
      'content-disposition': `attachment; filename="${head.filename}"`,
      'cache-control': 'no-store',
      ...(head.format !== 'ndjson' && { trailer: META_TRAILER }),
    });
    this.reply.hijack();
    this.reply.raw.writeHead(200, headers);
  }

  write(chunk: Buffer): Promise<boolean> {
    const res = this.reply.raw;
    if (this.gone) return Promise.resolve(false);
    return new Promise((resolve) => {
      let done = false;
      const settle = (ok: boolean) => {
        if (done) return;
        done = true;
        res.off('close', onClose);
        resolve(ok);
      };
      const onClose = () => settle(false);
      res.once('close', onClose);
      // The callback runs once the socket has handed the chunk to the operating system, or with an error.
      res.write(chunk, (err) => settle(!err && !this.gone));
    });
  }

  /** The meta after the body (docs/api-decisions.md), then the end of the response. */
  finish(done: ExportDone): void {
    const res = this.reply.raw;
    if (!this.started || this.gone) return;
    if (this.format === 'ndjson') res.write(`${JSON.stringify({ meta: done.meta })}\n`);
    else res.addTrailers({ [META_TRAILER]: JSON.stringify(done.meta) });
    res.end();
  }

  /** A failure after the head went out cannot become an error answer: the connection is cut instead. */
  abort(): void {
    if (!this.gone) this.reply.raw.destroy();
  }
}
