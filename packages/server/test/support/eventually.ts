/** Polls `check` until it stops throwing (or returns truthy), for assertions on background work. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 20): Promise<Exclude<T, null | undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = new Error('condition never became true');
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== false && value !== undefined && value !== null) return value as Exclude<T, null | undefined | false>;
      lastError = new Error(`condition returned ${String(value)}`);
    } catch (err) {
      lastError = err;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw lastError;
}
