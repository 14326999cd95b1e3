import { expect } from 'vitest';
import { ModelError } from '../../src/agent/types.js';

/** The ModelError a promise rejected with; resolving, or any other error, fails the test. */
export async function modelFailure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ModelError);
    return err as ModelError;
  }
  throw new Error('expected the request to fail');
}
