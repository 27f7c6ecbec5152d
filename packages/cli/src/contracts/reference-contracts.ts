/**
 * What `schema check --against` compares with: a saved export (its `contracts.json`, or the
 * directory holding it) or a git ref. For a ref, the domain's repository at that ref is
 * extracted into a temporary folder (`git archive`, so the repository itself is left alone),
 * given this checkout's node_modules, and exported there by this same CLI in a child process:
 * the old code's classes never meet today's in one process.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CliError } from '../errors.js';
import { CONTRACTS_FILE, readContractsFile, type ContractsDocument } from './contracts-document.js';

const run = promisify(execFile);
const CLI_BIN = fileURLToPath(new URL('../../bin/protean-ts.js', import.meta.url));

export interface ReferenceInput {
  against: string;
  cwd: string;
  /** The domain module today (absolute); its place in the repository is where the old one is looked for. */
  domainFile: string;
  /** --config, when given (absolute). */
  configFile?: string;
  env: Record<string, string | undefined>;
}

export async function referenceContracts(input: ReferenceInput): Promise<{ contracts: ContractsDocument; source: string }> {
  const given = path.resolve(input.cwd, input.against);
  if (fs.existsSync(given)) {
    const file = fs.statSync(given).isDirectory() ? path.join(given, CONTRACTS_FILE) : given;
    if (!fs.existsSync(file))
      throw new CliError(`${given} holds no ${CONTRACTS_FILE}; point --against at an export written by \`protean-ts schema export --out\``);
    return { contracts: readContractsFile(file), source: file };
  }
  return { contracts: await contractsAtRef(input), source: `git ref ${input.against}` };
}

async function git(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

async function contractsAtRef(input: ReferenceInput): Promise<ContractsDocument> {
  const moduleDir = path.dirname(input.domainFile);
  let root: string;
  try {
    root = fs.realpathSync(await git(['rev-parse', '--show-toplevel'], moduleDir));
  } catch {
    throw new CliError(`--against ${input.against} is neither a file nor a directory, and ${moduleDir} is not in a git repository to read a ref from`);
  }
  try {
    await git(['rev-parse', '--verify', '--quiet', `${input.against}^{commit}`], root);
  } catch {
    throw new CliError(`--against ${input.against}: no such file, directory or git ref (in ${root}); give an export's path or a branch, tag or commit`);
  }
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-ts-schema-check-'));
  try {
    const archive = path.join(temp, 'ref.tar');
    await git(['archive', '--format=tar', `--output=${archive}`, input.against], root);
    const tree = path.join(temp, 'tree');
    fs.mkdirSync(tree);
    await run('tar', ['-xf', archive, '-C', tree]);
    linkNodeModules(root, tree, fs.realpathSync(moduleDir));
    const relativeModule = path.relative(root, fs.realpathSync(input.domainFile));
    const oldModule = path.join(tree, relativeModule);
    if (!fs.existsSync(oldModule)) throw new CliError(`the domain module ${relativeModule} does not exist at ${input.against}; compare with an export instead`);
    const out = path.join(temp, 'export');
    const args = [CLI_BIN, '--domain', oldModule];
    const config = input.configFile ? fs.realpathSync(input.configFile) : undefined;
    if (config) args.push('--config', config.startsWith(`${root}${path.sep}`) ? path.join(tree, path.relative(root, config)) : config);
    args.push('schema', 'export', '--out', out, '--no-asyncapi');
    try {
      await run(process.execPath, args, { cwd: path.dirname(oldModule), env: input.env as NodeJS.ProcessEnv, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      throw new CliError(`exporting the domain at ${input.against} failed: ${stderr || String(error)}`);
    }
    return readContractsFile(path.join(out, CONTRACTS_FILE));
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

/** Every node_modules from the repository root down to the domain's folder, linked at the same place in the extracted tree. */
function linkNodeModules(root: string, tree: string, moduleDir: string): void {
  const parts = path.relative(root, moduleDir).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const relative = path.join(...parts.slice(0, i));
    const modules = path.join(root, relative, 'node_modules');
    const target = path.join(tree, relative, 'node_modules');
    if (fs.existsSync(modules) && !fs.existsSync(target) && fs.existsSync(path.dirname(target))) fs.symlinkSync(modules, target, 'dir');
  }
}
