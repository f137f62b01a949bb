import type { FastifyReply } from 'fastify';

export type FormBody = Record<string, string> | undefined;

export function formField(body: FormBody, name: string): string {
  const v = body?.[name];
  return typeof v === 'string' ? v : '';
}

/** Every dashboard page: HTML that no cache keeps (it shows balances, and once a key). */
export function sendPage(reply: FastifyReply, page: string): FastifyReply {
  return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
}
