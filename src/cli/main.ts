#!/usr/bin/env node
/// <reference types="node" />
/**
 * The `store-admin-sdk` command. `store-admin-sdk bulk --help` and `store-admin-sdk mcp --help` describe its subcommands.
 */
import { Command, CommanderError } from "commander";
import { VERSION } from "../version.js";
import { bulkCommand, EXIT_ERROR } from "./bulk-command.js";
import { mcpCommand } from "./mcp-command.js";

const program = new Command()
  .name("store-admin-sdk")
  .description("Store Admin SDK command line")
  .version(VERSION)
  // Usage errors exit with 2, like the command's other errors; help and version with 0.
  .exitOverride();
bulkCommand(program, { stdout: process.stdout, stderr: process.stderr, env: process.env });
mcpCommand(program, { stderr: process.stderr, env: process.env });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? 0 : EXIT_ERROR;
}
