/**
 * Node prints process warnings (a library's DeprecationWarning, a MaxListenersExceededWarning)
 * as raw `(node:123) …` lines on stderr, which breaks a log made of JSON records. The server
 * takes them over: Node's own printer is removed (what `--no-warnings` does) and each warning
 * becomes one WARN record, with its name, code and where it was raised.
 */
import type { Logger } from '@protean-ts/core';

/** Routes this process's warnings to `logger`; returns a function that puts Node's printer back. */
export function logProcessWarnings(logger: Logger): () => void {
  const nodePrinters = process.listeners('warning');
  for (const printer of nodePrinters) process.off('warning', printer);
  const onWarning = (warning: Error & { code?: string }) => {
    logger.warn(`process warning: ${warning.message}`, {
      warning: warning.name,
      ...(warning.code ? { code: warning.code } : {}),
      // The first frame outside Node names the library that raised it.
      at:
        warning.stack
          ?.split('\n')
          .slice(1)
          .map((frame) => frame.trim())
          .find((frame) => !frame.includes('node:')) ?? null,
    });
  };
  process.on('warning', onWarning);
  return () => {
    process.off('warning', onWarning);
    for (const printer of nodePrinters) process.on('warning', printer);
  };
}
