/**
 * The configuration files of a new project: package.json with exact versions, tsconfig.json with
 * the decorator options, the vitest config, domain.toml with the embedded default and a
 * production overlay, a Dockerfile, .gitignore and a README.
 */
import type { ProjectOptions } from './project-options.js';
import type { ProjectVersions } from './toolchain-versions.js';

export function packageJson(project: ProjectOptions, versions: ProjectVersions): string {
  const manifest = {
    name: project.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20' },
    scripts: {
      start: 'tsx src/main.ts',
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      'db:setup': 'protean-ts db setup',
      // `exec` makes the server npm's own child, so the SIGTERM npm passes on reaches it.
      server: 'exec protean-ts server',
    },
    dependencies: {
      '@protean-ts/cli': versions.protean,
      '@protean-ts/core': versions.protean,
    },
    devDependencies: {
      '@types/node': versions.typesNode,
      tsx: versions.tsx,
      typescript: versions.typescript,
      vitest: versions.vitest,
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export const TSCONFIG_JSON = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "skipLibCheck": true,
    "noEmit": true,
    "types": ["node"],
    // protean-ts decorators are TypeScript's experimental (legacy) decorators…
    "experimentalDecorators": true,
    // …and fields are accessors the decorators install, which class-field definitions would hide.
    "useDefineForClassFields": false
  },
  "include": ["src", "test", "vitest.config.ts"]
}
`;

export const VITEST_CONFIG = `import { defineConfig } from 'vitest/config';

// Vitest compiles with its own transformer: tell it the decorators are the experimental ones
// (tsconfig.json says the same to tsc and tsx).
export default defineConfig({
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: false } },
  test: { include: ['test/**/*.test.ts'] },
});
`;

export function domainToml(project: ProjectOptions): string {
  const database = project.folder.replace(/[^a-z0-9]+/g, '_');
  const lines = [
    '# Where `protean-ts` finds the domain.',
    'module = "src/domain.ts"',
    '',
    '# The embedded default, used by `npm start` and `npm test`: memory database, in-process broker,',
    '# event handlers run right after each commit.',
    'event_processing = "sync"',
    '',
    '[databases.default]',
    'provider = "memory"',
    '',
    '[brokers.default]',
    'provider = "inline"',
    '',
    '# Used when PROTEAN_ENV=production. ${NAME|fallback} reads an environment variable.',
    '[production]',
  ];
  if (project.broker === 'redis') {
    lines.push('# Events are stored with the aggregates (the outbox); `protean-ts server` handles them.', 'event_processing = "async"');
  } else {
    lines.push('# Handlers run in the process that handled the command, right after its commit.', 'event_processing = "sync"');
  }
  if (project.database === 'postgresql') {
    lines.push(
      '',
      '[production.databases.default]',
      'provider = "postgresql"',
      `database_uri = "\${DATABASE_URL|postgresql://postgres@127.0.0.1:5432/${database}}"`,
    );
  }
  if (project.broker === 'redis') {
    lines.push('', '[production.brokers.default]', 'provider = "redis"', 'uri = "${REDIS_URL|redis://127.0.0.1:6379}"');
    lines.push('', '[production.server.health]', '# Where the probes of your orchestrator ask: /livez, /readyz, /healthz.', 'port = "${HEALTH_PORT|8080}"');
  }
  return `${lines.join('\n')}\n`;
}

export const DOCKERFILE = `FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ENV PROTEAN_ENV=production
# The server itself is the container's main process, so \`docker stop\` (SIGTERM) reaches it and it
# finishes the messages in flight. \`npx protean-ts server\` would not pass SIGTERM on.
CMD ["node_modules/.bin/protean-ts", "server"]
`;

export const GITIGNORE = `node_modules/
dist/
`;

export function readme(project: ProjectOptions): string {
  const production =
    project.broker === 'redis'
      ? [
          'With PostgreSQL and Redis running (see `domain.toml`, `[production]`):',
          '',
          '```sh',
          'export PROTEAN_ENV=production',
          'npx protean-ts db setup     # the tables',
          'npm run server             # the server: outbox relay and event handlers; Ctrl-C stops it',
          'npm start                  # in a second terminal: a command, handled by the server',
          '```',
          '',
          'Deploy the server as `npm run server` (its script `exec`s the server, so SIGTERM reaches it),',
          'as `node_modules/.bin/protean-ts server`, or with the Dockerfile; not with `npx`, which does',
          'not pass SIGTERM on and would leave the server running.',
        ]
      : ['`PROTEAN_ENV=production` selects the `[production]` overlay of `domain.toml`.'];
  return [
    `# ${project.name}`,
    '',
    'A [protean-ts](https://www.npmjs.com/package/@protean-ts/core) domain.',
    '',
    '```sh',
    'npm test                   # the domain test, on the embedded memory database',
    'npm start                  # src/main.ts: one command, handled',
    'npx protean-ts info        # the elements protean-ts sees',
    '```',
    '',
    ...production,
    '',
  ].join('\n');
}
