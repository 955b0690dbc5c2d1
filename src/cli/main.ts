#!/usr/bin/env node
import { CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { packageVersion } from '../version.js';
import { EXIT, fail } from './cli-support.js';
import { createProgram } from './program.js';

// The CLI's process: the composition of the commands (an adapter) with the configuration.
try {
  await createProgram({ loadConfig: () => loadConfig(), version: packageVersion() }).parseAsync();
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed the problem (and the help) already.
    process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  }
  if (error instanceof ConfigError) fail(error.message, EXIT.usage);
  fail(`error: ${error instanceof Error ? error.message : String(error)}`);
}
