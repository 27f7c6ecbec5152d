/**
 * Entry ids in Redis's `<milliseconds>-<sequence>` form, strictly increasing even when the
 * wall clock stalls or steps back, so inline ids sort and read like Redis ones.
 */
export class StreamIdClock {
  private lastMs = 0;
  private sequence = 0;

  next(): string {
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.sequence = 0;
    } else {
      this.sequence += 1;
    }
    return `${this.lastMs}-${this.sequence}`;
  }
}
