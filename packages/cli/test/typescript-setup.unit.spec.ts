import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionFromArgv } from '../src/typescript/bootstrap-typescript.js';
import { fallbackTsconfig, findNearestTsconfig } from '../src/typescript/find-tsconfig.js';
import { REQUIRED_COMPILER_OPTIONS, writeRuntimeTsconfig } from '../src/typescript/register-typescript.js';
import { tempProject } from './cli-fixture.js';

describe('optionFromArgv', () => {
  it.each([
    [['--domain', 'a.ts', 'info'], 'a.ts'],
    [['info', '--domain=b.ts'], 'b.ts'],
    [['config', 'check', '--domain', 'c.ts', '--json'], 'c.ts'],
    [['info'], undefined],
    [['info', '--', '--domain', 'd.ts'], undefined],
  ])('%j → %s', (args, expected) => {
    expect(optionFromArgv(args, 'domain')).toBe(expected);
  });
});

describe('the runtime tsconfig', () => {
  it('extends the nearest tsconfig of the domain module', () => {
    const root = tempProject({ 'tsconfig.json': '{}', 'src/app/domain.ts': '' }, { linkCore: false });
    expect(findNearestTsconfig(path.join(root, 'src/app/domain.ts'))).toBe(path.join(root, 'tsconfig.json'));
    const generated = JSON.parse(fs.readFileSync(writeRuntimeTsconfig(path.join(root, 'src/app/domain.ts')), 'utf8'));
    expect(generated).toEqual({
      extends: path.join(root, 'tsconfig.json'),
      compilerOptions: REQUIRED_COMPILER_OPTIONS,
      include: ['/**/*'],
      exclude: [],
    });
  });

  it('extends the shipped fallback when the domain has no tsconfig, and the fallback has the decorator settings', () => {
    const root = tempProject({ 'domain.ts': '' }, { linkCore: false });
    const generated = JSON.parse(fs.readFileSync(writeRuntimeTsconfig(path.join(root, 'domain.ts')), 'utf8'));
    expect(generated.extends).toBe(fallbackTsconfig());
    const fallback = fs.readFileSync(fallbackTsconfig(), 'utf8');
    expect(fallback).toContain('"experimentalDecorators": true');
    expect(fallback).toContain('"useDefineForClassFields": false');
  });

  it('writes one file per content (same input, same path)', () => {
    const root = tempProject({ 'domain.ts': '' }, { linkCore: false });
    expect(writeRuntimeTsconfig(path.join(root, 'domain.ts'))).toBe(writeRuntimeTsconfig(path.join(root, 'domain.ts')));
  });
});
