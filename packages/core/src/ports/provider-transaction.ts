/** A transaction a database provider opened; the stores' write methods take it. */
export interface ProviderTransaction {
  /** The `[databases.<name>]` key of the provider that opened it. */
  readonly providerName: string;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}
