/**
 * The token counter on 1 MB of hostile Unicode (marks, joiners, lone surrogates, scripts without
 * spaces, invisible characters): linear work, the library's exact counts, cut without overflow.
 */
import { describe, it } from 'node:test';
import { UNICODE_SHAPES, checkTokenShape } from '../fakes/linear';

describe('counting and cutting tokens of 1 MB of hostile Unicode', () => {
  for (const [name, shape] of Object.entries(UNICODE_SHAPES))
    it(`${name}: counted in linear time, exactly as js-tiktoken counts it, and cut to size`, () =>
      checkTokenShape(shape));
});
