/**
 * A sleep that a signal can cut short. A `wake()` that arrives while no one sleeps is kept, so a
 * commit notified during a publish cycle still makes the next sleep return at once.
 */
export class Waker {
  private pending = false;
  private current: (() => void) | null = null;

  wake(): void {
    this.pending = true;
    this.current?.();
  }

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.current = null;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.current = done;
    });
  }
}
