import { loadConfig } from '../../../src/config.ts';
import { startServer } from '../../../src/server.ts';

/**
 * The real server in a child process, configured only by its environment (as `regdata serve` is), for
 * tests that SIGKILL it. Prints `ready <url>` once it listens.
 */
const server = await startServer(loadConfig(process.env), { handleSignals: false });
process.stdout.write(`ready ${server.url}\n`);
