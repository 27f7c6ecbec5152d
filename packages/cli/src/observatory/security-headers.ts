/**
 * Headers on every observatory response: no framing (the Replay and Purge buttons must never
 * render inside another site's page), no content sniffing, no referrer, and a content security
 * policy that lets the page load only its own files; the one inline script, index.html's import
 * map, is allowed by its hash.
 */
import { createHash } from 'node:crypto';

export function securityHeaders(indexHtml: string): Record<string, string> {
  const inline = [...indexHtml.matchAll(/<script type="importmap">([\s\S]*?)<\/script>/g)].map(
    (match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`,
  );
  const policy = [
    "default-src 'self'",
    `script-src 'self' ${inline.join(' ')}`.trim(),
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': policy,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}
