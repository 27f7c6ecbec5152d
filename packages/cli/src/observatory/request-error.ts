/** A request the observatory cannot carry out as asked (unknown database, missing ids): answered with 400 and its message. */
export class ObservatoryRequestError extends Error {
  override name = 'ObservatoryRequestError';
}
