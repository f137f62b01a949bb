// Runs `regdata ingest` in a child process for the kill test: argv = <dataDir> <ingest args...>.
import { loadConfig } from '../../../src/config.ts';
import { ingestCommand } from '../../../src/cli/commands/ingest.ts';

const [dataDir, ...args] = process.argv.slice(2);
process.exitCode = await ingestCommand(args, loadConfig({ REGDATA_DATA_DIR: dataDir }));
