// Module resolve hook for running protean-ts from source: adds the `@protean-ts/source` export
// condition, so workspace packages (@protean-ts/core, …) resolve to their TypeScript sources.
const CONDITION = '@protean-ts/source';

export async function resolve(specifier, context, nextResolve) {
  const conditions = context.conditions.includes(CONDITION) ? context.conditions : [...context.conditions, CONDITION];
  return nextResolve(specifier, { ...context, conditions });
}
