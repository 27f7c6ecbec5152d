import { describe, expect, it } from 'vitest';
import { checkListenHost, isLoopbackHost } from '../src/observatory/listen-address.js';

describe('the observatory address rule', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
    expect(() => checkListenHost(host, false)).not.toThrow();
  });

  it.each(['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1'])('%s is refused without --allow-remote, saying why', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
    expect(() => checkListenHost(host, false)).toThrow(
      /refusing to listen on .*replay or purge dead letters.*--allow-remote: every request then needs an access token/,
    );
    expect(() => checkListenHost(host, true)).not.toThrow();
  });

  it('an empty host is a usage error', () => {
    expect(() => checkListenHost(' ', true)).toThrow(/--host must not be empty/);
  });
});
