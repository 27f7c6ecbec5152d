/**
 * Thrown when an element is registered or used the wrong way: registering after `init()`,
 * a class that is not an element, or using an element no domain knows.
 */
export class RegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrationError';
  }
}
