/**
 * A loop backing off after an outage resumes within a probe interval of the service answering,
 * not at the end of its (up to 30 s) back-off; without an answer it waits the whole back-off.
 */
import { describe, expect, it } from 'vitest';
import { RECOVERY_PROBE_MS, sleepUntilRecovered } from '../src/subscriptions/abortable-sleep.js';

describe('sleepUntilRecovered', () => {
  it('ends within one probe interval of the service answering', async () => {
    const backAt = Date.now() + 300;
    const started = Date.now();
    const recovered = await sleepUntilRecovered(30_000, new AbortController().signal, async () => Date.now() >= backAt);
    expect(recovered).toBe(true);
    // Generous for a loaded machine: the back-off it cuts short is 30 s.
    expect(Date.now() - started).toBeLessThan(300 + RECOVERY_PROBE_MS + 2_000);
  });

  it('waits the whole delay while the service does not answer (or its probe throws)', async () => {
    let probes = 0;
    const started = Date.now();
    const recovered = await sleepUntilRecovered(600, new AbortController().signal, async () => {
      probes += 1;
      if (probes % 2 === 0) throw new Error('probe failed');
      return false;
    });
    expect(recovered).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
    expect(probes).toBeGreaterThanOrEqual(2);
  });

  it('ends at once when the signal aborts', async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const started = Date.now();
    expect(await sleepUntilRecovered(30_000, abort.signal, async () => false)).toBe(false);
    expect(Date.now() - started).toBeLessThan(RECOVERY_PROBE_MS + 2_000);
  });
});
