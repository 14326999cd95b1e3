/**
 * Where the time comes from. Passed in (never read from `new Date()` in place) so tests can
 * fix it and a run's timestamps all come from one source.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
