/**
 * Thrown when the domain was compiled with TypeScript settings protean-ts's decorators cannot
 * work with: standard (TC39) decorators instead of experimental ones, or class fields defined on
 * each instance (which hide the field accessors, so every field would read undefined). It names
 * the compiler option to set and where.
 */
export class DecoratorSettingsError extends Error {
  constructor(
    /** `experimentalDecorators` or `useDefineForClassFields`. */
    readonly option: 'experimentalDecorators' | 'useDefineForClassFields',
    /** What noticed it: `@field.string() on Order.customer`, `Order`. */
    readonly where: string,
    problem: string,
  ) {
    const value = option === 'experimentalDecorators' ? 'true' : 'false';
    super(
      `${where}: ${problem}. Set "${option}": ${value} in the "compilerOptions" of your tsconfig.json (tsc, tsx and esbuild all read it there; the protean-ts CLI sets it for the domains it loads)`,
    );
    this.name = 'DecoratorSettingsError';
  }
}
