/**
 * What `protean-ts schema export --out <dir>` writes: `contracts.json` (the bundle `schema
 * check` reads back), one JSON Schema per message under `schemas/`, and one AsyncAPI document
 * per external broker under `asyncapi/`. Every file is rewritten whole, keys in a stable order,
 * so a committed export changes only where the contracts do.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CONTRACTS_FILE, type ContractsDocument } from './contracts-document.js';
import type { AsyncApiDocument } from './asyncapi-document.js';

export interface ExportedFiles {
  contracts: string;
  schemas: string[];
  asyncapi: string[];
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

export function writeExport(dir: string, contracts: ContractsDocument, asyncapi: ReadonlyMap<string, AsyncApiDocument>): ExportedFiles {
  fs.mkdirSync(path.join(dir, 'schemas'), { recursive: true });
  // Schemas of messages that no longer exist must not linger beside the new ones.
  for (const stale of fs.readdirSync(path.join(dir, 'schemas'))) if (stale.endsWith('.schema.json')) fs.rmSync(path.join(dir, 'schemas', stale));
  const schemas = contracts.messages.map((message) => {
    const file = path.join(dir, 'schemas', `${message.type}.schema.json`);
    fs.writeFileSync(file, json(message.schema));
    return file;
  });
  const files: string[] = [];
  if (asyncapi.size) {
    fs.mkdirSync(path.join(dir, 'asyncapi'), { recursive: true });
    for (const [broker, document] of asyncapi) {
      const file = path.join(dir, 'asyncapi', `${broker}.asyncapi.json`);
      fs.writeFileSync(file, json(document));
      files.push(file);
    }
  }
  const contractsFile = path.join(dir, CONTRACTS_FILE);
  fs.writeFileSync(contractsFile, json(contracts));
  return { contracts: contractsFile, schemas, asyncapi: files };
}
