/**
 * `protean-ts new <name> [--database memory|postgresql] [--broker inline|redis]`: a ready
 * project in ./<name> (a domain with a test, exact versions, domain.toml with the embedded
 * default and a production overlay), then the commands to run next.
 */
import path from 'node:path';
import { projectOptions, type ProjectOptions } from '../scaffold/project-options.js';
import { projectVersions } from '../scaffold/toolchain-versions.js';
import { projectFiles, writeProject } from '../scaffold/write-project.js';
import type { CommandGroup } from './command-group.js';

export const registerNewCommand: CommandGroup = (program, context) => {
  program
    .command('new')
    .description('Create a project: a domain with a test, domain.toml with a production overlay, exact versions')
    .argument('<name>', 'package name, and the folder to create (must be empty or absent)')
    .option('--database <provider>', 'production database: memory or postgresql', 'postgresql')
    .option('--broker <provider>', 'production broker: inline or redis', 'redis')
    .action((name: string, options: { database: string; broker: string }) => {
      const project = projectOptions(name, options.database, options.broker);
      const folder = path.resolve(context.cwd, project.folder);
      const written = writeProject(folder, projectFiles(project, projectVersions()));
      context.io.stdout(nextSteps(project, path.relative(context.cwd, folder) || '.', written));
    });
};

function nextSteps(project: ProjectOptions, folder: string, written: string[]): string {
  const lines = [`Created ${project.name} in ${folder}: ${written.join(', ')}`, '', 'Next:', `  cd ${folder}`, '  npm install', '  npm test', '  npm start'];
  if (project.broker === 'redis') {
    lines.push(
      '',
      `On ${project.database === 'postgresql' ? 'PostgreSQL' : project.database} and Redis (the [production] overlay of domain.toml):`,
      '  export PROTEAN_ENV=production',
      '  npx protean-ts db setup',
      '  npm run server        # or node_modules/.bin/protean-ts server; not npx, which does not pass SIGTERM on',
    );
  } else if (project.database === 'postgresql') {
    lines.push('', 'On PostgreSQL (the [production] overlay of domain.toml):', '  export PROTEAN_ENV=production', '  npx protean-ts db setup', '  npm start');
  }
  return `${lines.join('\n')}\n`;
}
