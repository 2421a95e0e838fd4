#!/usr/bin/env node
/// <reference types="node" />
/**
 * The `store-admin-sdk` command: `bulk`, `mock` and `mcp` (`store-admin-sdk <command> --help`).
 */
import { Command, CommanderError } from "commander";
import { VERSION } from "#shared";
import { bulkCommand, EXIT_ERROR } from "./bulk-command.js";
import { mcpCommand } from "./mcp-command.js";
import { mockCommand } from "./mock-command.js";

const program = new Command()
  .name("store-admin-sdk")
  .description("Store Admin SDK command line")
  .version(VERSION)
  // Usage errors exit with 2, like the command's other errors; help and version with 0.
  .exitOverride();
bulkCommand(program, { stdout: process.stdout, stderr: process.stderr, env: process.env });
mcpCommand(program, { stderr: process.stderr, env: process.env });
mockCommand(program, { stdout: process.stdout, stderr: process.stderr });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? 0 : EXIT_ERROR;
}
