/**
 * `protean-ts catalog`: every event and command of the domain with its fields, version,
 * aggregate, stream category, published or internal, and what consumes it. Text, `--json`, or
 * `--markdown` for a page a team publishes. Reads the model only; nothing is connected.
 */
import { CliError } from '../errors.js';
import { messageCatalog } from '../contracts/catalog.js';
import { renderCatalogMarkdown, renderCatalogText } from '../contracts/catalog-render.js';
import type { CommandGroup } from './command-group.js';

export const registerCatalogCommands: CommandGroup = (program, context) => {
  program
    .command('catalog')
    .description('List every event and command: fields, version, aggregate, stream, published or internal, consumers')
    .option('--json', 'print JSON')
    .option('--markdown', 'print a Markdown page')
    .action(async (options: { json?: boolean; markdown?: boolean }) => {
      if (options.json && options.markdown) throw new CliError('catalog: choose one of --json and --markdown', 2);
      const domain = await context.loadDomain();
      const problems = domain.validateModel();
      if (problems.length) throw new CliError(`the model of ${domain.name} has ${problems.length} problem(s); \`protean-ts info\` lists them`);
      const catalog = messageCatalog(domain);
      if (options.json) context.io.stdout(`${JSON.stringify(catalog, null, 2)}\n`);
      else if (options.markdown) context.io.stdout(renderCatalogMarkdown(catalog));
      else context.io.stdout(renderCatalogText(catalog));
    });
};
