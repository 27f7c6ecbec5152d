/**
 * `protean-ts schema export` writes the message contracts (contracts.json, a JSON Schema per
 * message, an AsyncAPI document per external broker); `protean-ts schema check --against`
 * compares today's domain with a saved export or a git ref and exits 1 when a change is an error,
 * the gate a CI job runs before deploying.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Domain } from '@protean-ts/core';
import { CliError } from '../errors.js';
import type { CliContext } from '../cli-context.js';
import { asyncApiDocument, type AsyncApiDocument } from '../contracts/asyncapi-document.js';
import { domainContracts } from '../contracts/domain-contracts.js';
import { writeExport } from '../contracts/export-files.js';
import type { ContractsDocument } from '../contracts/contracts-document.js';
import { compareContracts } from '../contracts/compare-contracts.js';
import { renderCheck } from '../contracts/check-report.js';
import { referenceContracts } from '../contracts/reference-contracts.js';
import type { CommandGroup } from './command-group.js';

interface ExportOptions {
  out?: string;
  asyncapi: boolean | string;
  apiVersion?: string;
}

async function loadedContracts(context: CliContext): Promise<{ domain: Domain; contracts: ContractsDocument }> {
  const domain = await context.loadDomain();
  const problems = domain.validateModel();
  if (problems.length) throw new CliError(`the model of ${domain.name} has ${problems.length} problem(s); \`protean-ts info\` lists them`);
  return { domain, contracts: domainContracts(domain) };
}

/** One document per `outbox.external_brokers` entry; none when no event is published. */
async function asyncApiDocuments(context: CliContext, contracts: ContractsDocument, version: string): Promise<Map<string, AsyncApiDocument>> {
  const documents = new Map<string, AsyncApiDocument>();
  if (!contracts.messages.some((m) => m.kind === 'event' && m.published)) return documents;
  let config;
  try {
    ({ config } = await context.loadConfig());
  } catch (error) {
    throw new CliError(`the AsyncAPI documents need the configuration (outbox.external_brokers): ${(error as Error).message}; or pass --no-asyncapi`);
  }
  for (const name of config.outbox.external_brokers) {
    const settings = config.brokers[name];
    if (settings) documents.set(name, asyncApiDocument({ contracts, broker: { name, settings }, version }));
  }
  if (documents.size === 0) context.io.stderr('published events, but no outbox.external_brokers in the configuration: no AsyncAPI document\n');
  return documents;
}

/** `info.version` of the AsyncAPI documents: --api-version, else the version in the domain's package.json. */
function applicationVersion(context: CliContext, given: string | undefined): string {
  if (given) return given;
  for (let dir = path.dirname(context.locateDomain().file); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const version = (JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version;
      return typeof version === 'string' ? version : '0.0.0';
    }
    if (path.dirname(dir) === dir) return '0.0.0';
  }
}

export const registerSchemaCommands: CommandGroup = (program, context) => {
  const schema = program.command('schema').description('Message contracts: export JSON Schema and AsyncAPI, check compatibility');

  schema
    .command('export')
    .description('Write contracts.json, a JSON Schema per message and an AsyncAPI document per external broker')
    .option('--out <dir>', 'write the files into this directory (default: print contracts.json)')
    .option('--asyncapi <broker>', 'print the AsyncAPI document of one external broker instead')
    .option('--no-asyncapi', 'skip the AsyncAPI documents (no configuration needed)')
    .option('--api-version <version>', "info.version of the AsyncAPI documents (default: the domain's package.json version)")
    .action(async (options: ExportOptions) => {
      const { contracts } = await loadedContracts(context);
      const documents =
        options.asyncapi === false
          ? new Map<string, AsyncApiDocument>()
          : await asyncApiDocuments(context, contracts, applicationVersion(context, options.apiVersion));
      if (typeof options.asyncapi === 'string') {
        const document = documents.get(options.asyncapi);
        if (!document) {
          const known = [...documents.keys()];
          throw new CliError(
            `--asyncapi ${options.asyncapi}: no AsyncAPI document for that broker (documents: ${known.length ? known.join(', ') : 'none'}; they are written for outbox.external_brokers when events are published)`,
            2,
          );
        }
        context.io.stdout(`${JSON.stringify(document, null, 2)}\n`);
        return;
      }
      if (!options.out) {
        context.io.stdout(`${JSON.stringify(contracts, null, 2)}\n`);
        return;
      }
      const written = writeExport(path.resolve(context.cwd, options.out), contracts, documents);
      context.io.stdout(`Wrote ${written.contracts}, ${written.schemas.length} JSON Schema(s) and ${written.asyncapi.length} AsyncAPI document(s)\n`);
    });

  schema
    .command('check')
    .description('Compare the domain with a saved export or a git ref; exits 1 when a change is an error')
    .requiredOption('--against <export-or-ref>', 'contracts.json, the export directory holding it, or a git ref (branch, tag, commit)')
    .option('--json', 'print JSON')
    .action(async (options: { against: string; json?: boolean }) => {
      const { contracts } = await loadedContracts(context);
      const config = context.globals().config;
      const reference = await referenceContracts({
        against: options.against,
        cwd: context.cwd,
        domainFile: context.locateDomain().file,
        ...(config ? { configFile: path.resolve(context.cwd, config) } : {}),
        env: context.env,
      });
      const result = compareContracts(reference.contracts, contracts);
      if (options.json) context.io.stdout(`${JSON.stringify({ against: reference.source, ...result }, null, 2)}\n`);
      else context.io.stdout(renderCheck(result, reference.source));
      if (result.errors) throw new CliError(`schema check: ${result.errors} error(s) against ${reference.source}`);
    });
};
