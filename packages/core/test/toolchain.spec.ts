import 'reflect-metadata';
import { describe, it, expect } from 'vitest';

function mark(tag: string): PropertyDecorator {
  return (target, key) => { Reflect.defineMetadata('tag', tag, target, key); };
}
class A { @mark('x') name!: string; }

describe('toolchain', () => {
  it('runs legacy decorators', () => {
    expect(Reflect.getMetadata('tag', A.prototype, 'name')).toBe('x');
    expect(Object.prototype.hasOwnProperty.call(new A(), 'name')).toBe(false);
  });
});
