import type { Socket } from 'node:net';
import tcpInfo from '@regdata/tcp-info';
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
  private delivery: Delivery | null = null;

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
    const socket = this.reply.raw.socket;
    if (socket) this.delivery = Delivery.track(socket);
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
      // The chunk's place on the socket is known only if its framing reaches the socket inside this call.
      // Node 22+ holds chunks written while the response is corked and frames them together on the next
      // tick, unless the socket is already corked: so it is corked here, around the write.
      const socket = res.socket;
      socket?.cork();
      const before = socket?.bytesWritten ?? 0;
      const placed = this.delivery?.wrote(chunk.length, before);
      // The callback runs once the socket has handed the chunk to the operating system, or with an error.
      res.write(chunk, (err) => {
        placed?.written();
        this.delivery?.poll();
        settle(!err && !this.gone);
      });
      placed?.queued();
      socket?.uncork();
    });
  }

  delivered(): Promise<number | null> {
    return this.delivery ? this.delivery.settled(this.reply.raw) : Promise.resolve(null);
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

/** How long the end of an export waits for the client to acknowledge the last bytes before it is charged. */
export const DELIVERY_WAIT_MS = 30_000;
/** How often the acknowledged bytes are read while an export streams (a stalled client writes nothing). */
const POLL_MS = 20;

/**
 * The body bytes of one response that the client's TCP stack has acknowledged (Linux `TCP_INFO`
 * `tcpi_bytes_acked`, through packages/tcp-info). Bytes handed to the socket are not bytes received: the
 * kernel's send buffer and the network hold megabytes, and a client that stops reading and closes never
 * gets them. Acknowledged bytes are; they include what sits unread in the client's own receive buffer.
 *
 * The socket's byte counts include the response head and the chunked framing: each chunk's place on the
 * socket is recorded as it is written, and the acknowledged count is mapped back to body bytes. The count
 * is read after every write and on a timer, and kept at its highest, since the socket's descriptor is gone
 * once the client has closed; what was acknowledged after the last reading is not charged.
 */
class Delivery {
  private acked = 0;
  private readonly chunks: { dataEnd: number; length: number }[] = [];
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly socket: Socket,
    private readonly fd: number,
  ) {
    this.timer = setInterval(() => this.poll(), POLL_MS).unref();
    socket.once('close', () => clearInterval(this.timer));
    // The last reading is taken as the socket is destroyed (a client's reset, or its FIN once the response
    // is done), before its descriptor is closed: after that the number may belong to another socket.
    const destroy = socket._destroy.bind(socket);
    socket._destroy = (err, callback) => {
      this.read();
      destroy(err, callback);
    };
  }

  /** Null where the acknowledged bytes cannot be read (not Linux, no addon, not a TCP socket). */
  static track(socket: Socket): Delivery | null {
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    if (!tcpInfo.available || typeof fd !== 'number' || fd < 0) return null;
    const delivery = new Delivery(socket, fd);
    return delivery.poll() === null ? (delivery.stop(), null) : delivery;
  }

  /**
   * A body chunk about to be written, the socket's byte count before it. Its last byte's offset on the
   * socket (its CRLF follows) is taken once `res.write` returns, if the chunk and its framing are on the
   * socket by then; else, never earlier than the write's callback, when they are (writes are one at a
   * time). Until it is known the chunk counts as not acknowledged: an unknown place is never charged.
   */
  wrote(length: number, before: number): { queued(): void; written(): void } {
    const chunk = { dataEnd: Number.POSITIVE_INFINITY, length };
    this.chunks.push(chunk);
    const unknown = () => chunk.dataEnd === Number.POSITIVE_INFINITY;
    return {
      queued: () => {
        const after = this.socket.bytesWritten;
        // The size line, the data and its CRLF are at least length + 5 bytes (the head may come first).
        if (after - before >= length + 5) chunk.dataEnd = after - 2;
      },
      written: () => {
        if (unknown()) chunk.dataEnd = this.socket.bytesWritten - 2;
      },
    };
  }

  poll(): number | null {
    return this.socket.destroyed ? null : this.read();
  }

  /** Reads the count; only while the socket's descriptor is open. */
  private read(): number | null {
    const now = tcpInfo.bytesAcked(this.fd);
    if (now !== null) this.acked = Math.max(this.acked, now);
    return now;
  }

  /** The body bytes acknowledged: the whole chunks, and the acknowledged part of the next one. */
  private body(): number {
    let body = 0;
    for (const c of this.chunks) {
      if (this.acked >= c.dataEnd) body += c.length;
      else {
        body += Math.max(0, c.length - (c.dataEnd - this.acked));
        break;
      }
    }
    return body;
  }

  /**
   * Resolves with the acknowledged body bytes once every written body byte is acknowledged, the client
   * has gone, or DELIVERY_WAIT_MS have passed.
   */
  settled(res: NodeJS.EventEmitter): Promise<number> {
    const written = this.chunks.reduce((n, c) => n + c.length, 0);
    const started = Date.now();
    const finished = () =>
      this.body() >= written || this.socket.destroyed || Date.now() - started >= DELIVERY_WAIT_MS;
    this.poll();
    if (finished()) {
      this.stop();
      return Promise.resolve(this.body());
    }
    return new Promise((resolve) => {
      const done = () => {
        clearInterval(check);
        res.off('close', done);
        this.stop();
        resolve(this.body());
      };
      const check = setInterval(() => {
        this.poll();
        if (finished()) done();
      }, POLL_MS);
      res.once('close', done);
    });
  }

  private stop(): void {
    clearInterval(this.timer);
  }
}
