/**
 * Reads one `[brokers.<name>]` table for an adapter: typed values with defaults, and a
 * `BrokerSettingsError` naming the table and key for a wrong type, a bad value or a typo.
 */
import { describeValue, maskUri } from './mask-secrets.js';
import { suggestKey } from './suggest-key.js';
import { BrokerSettingsError } from './broker-settings.error.js';
import type { BrokerSettings } from './config-types.js';

/** Keys every `[brokers.<name>]` table may hold, read by the base broker. */
export const COMMON_BROKER_KEYS = ['provider', 'claim_idle_ms'] as const;

export class BrokerSettingsReader {
  constructor(
    private readonly brokerName: string,
    private readonly settings: BrokerSettings,
  ) {}

  /** Rejects keys neither the adapter nor every broker (`COMMON_BROKER_KEYS`) knows, suggesting the closest. */
  onlyKeys(known: readonly string[]): void {
    const allowed = [...COMMON_BROKER_KEYS, ...known];
    for (const [key, value] of Object.entries(this.settings)) {
      if (allowed.includes(key) || value === undefined) continue;
      const guess = suggestKey(key, allowed);
      const hint = guess ? `did you mean "${guess}"?` : `known keys: ${allowed.join(', ')}`;
      throw new BrokerSettingsError(this.brokerName, key, `unknown setting for provider "${this.settings.provider}"; ${hint}`);
    }
  }

  string(key: string, fallback: string): string {
    const value = this.settings[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'string') throw new BrokerSettingsError(this.brokerName, key, `must be a string, got ${describeValue(value)}`);
    return value;
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.settings[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw new BrokerSettingsError(this.brokerName, key, `must be true or false, got ${describeValue(value)}`);
    return value;
  }

  /** `max` defaults to the largest safe integer; durations that end in a timer pass `MAX_TIMER_MS`. */
  integer(key: string, fallback: number, min: number, max: number = Number.MAX_SAFE_INTEGER): number {
    const value = this.settings[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new BrokerSettingsError(this.brokerName, key, `must be an integer between ${min} and ${max}, got ${describeValue(value)}`);
    }
    return value;
  }

  /** A required URI whose scheme is one of `schemes`; the error shows it masked. */
  uri(key: string, schemes: readonly string[]): URL {
    const value = this.settings[key];
    const example = `${schemes[0]}://[user:password@]host:port[/db]`;
    if (typeof value !== 'string' || value === '') {
      const got = value === undefined ? '' : ` (got ${describeValue(value)})`;
      throw new BrokerSettingsError(this.brokerName, key, `is required as a string, e.g. ${key} = "${example}"${got}`);
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new BrokerSettingsError(this.brokerName, key, `"${maskUri(value)}" is not a URI; expected ${example}`);
    }
    const scheme = url.protocol.replace(/:$/, '');
    if (!schemes.includes(scheme)) {
      throw new BrokerSettingsError(this.brokerName, key, `scheme "${scheme}" is not supported; use ${schemes.map((s) => `${s}://`).join(' or ')}`);
    }
    return url;
  }
}
