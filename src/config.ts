import path from 'node:path';
import { z } from 'zod';

/**
 * The one place that reads the environment. Server and CLI both call loadConfig(), so a key made by the
 * CLI lands in the same wallet.db the server opens when both run with the same environment.
 */
export const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    REGDATA_DATA_DIR: z.string().min(1).default('./data'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Scale of the demo world `npm start` builds when no snapshot exists yet. */
    REGDATA_DEMO_SCALE: z.coerce.number().positive().max(2).default(0.01),
    REGDATA_DEMO_SEED: z.coerce.number().int().min(0).default(1),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    dataDir: path.resolve(env.REGDATA_DATA_DIR),
    logLevel: env.LOG_LEVEL,
    demoScale: env.REGDATA_DEMO_SCALE,
    demoSeed: env.REGDATA_DEMO_SEED,
  }));

export type Config = z.output<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  return parsed.data;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
