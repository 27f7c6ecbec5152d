/**
 * The export file (`contracts.json`): every event and command of a domain with its field
 * contracts, its JSON Schema and the upcaster steps of events. `schema export` writes it and
 * `schema check` reads it back, so its shape is versioned (`format`) and its keys are sorted
 * by message type, to diff cleanly in a pull request.
 */
import fs from 'node:fs';
import { CliError } from '../errors.js';
import type { FieldContract } from './field-contract.js';
import type { JsonSchema } from './json-schema.js';

export const CONTRACTS_FORMAT = 'protean-ts/contracts@1';
export const CONTRACTS_FILE = 'contracts.json';

export interface MessageContract {
  kind: 'event' | 'command';
  /** Registration name (`OrderPlaced`). */
  name: string;
  /** `<Domain>.<Name>`: stays the same across versions. */
  fqn: string;
  /** `<Domain>.<Name>.v<N>`. */
  type: string;
  version: number;
  published: boolean;
  aggregate: string | null;
  streamCategory: string | null;
  fields: FieldContract[];
  /** Events only: the registered upcaster steps, `from` → `to`. */
  upcasters: { from: number; to: number }[];
  schema: JsonSchema;
}

export interface ContractsDocument {
  format: typeof CONTRACTS_FORMAT;
  domain: string;
  messages: MessageContract[];
}

export class ContractsFileError extends CliError {
  constructor(file: string, problem: string) {
    super(`${file} is not a protean-ts contracts export: ${problem}; write one with \`protean-ts schema export --out <dir>\``);
    this.name = 'ContractsFileError';
  }
}

export function readContractsFile(file: string): ContractsDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ContractsFileError(file, error instanceof Error ? error.message : String(error));
  }
  return parseContracts(file, parsed);
}

export function parseContracts(file: string, parsed: unknown): ContractsDocument {
  const doc = parsed as Partial<ContractsDocument> | null;
  if (!doc || typeof doc !== 'object') throw new ContractsFileError(file, 'it is not a JSON object');
  if (doc.format !== CONTRACTS_FORMAT) throw new ContractsFileError(file, `its "format" is ${JSON.stringify(doc.format)}, not "${CONTRACTS_FORMAT}"`);
  if (typeof doc.domain !== 'string' || !Array.isArray(doc.messages))
    throw new ContractsFileError(file, 'it needs "domain" (a string) and "messages" (an array)');
  doc.messages.forEach((message, i) => {
    const m = message as Partial<MessageContract> | null;
    if (!m || typeof m.fqn !== 'string' || typeof m.version !== 'number' || !Array.isArray(m.fields) || (m.kind !== 'event' && m.kind !== 'command')) {
      throw new ContractsFileError(file, `messages[${i}] needs kind, fqn, version and fields`);
    }
  });
  return doc as ContractsDocument;
}
