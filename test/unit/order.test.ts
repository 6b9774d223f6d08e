import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { speakingOrder } from '../../daemon/src/meeting/order';

const workers = ['ada', 'grace', 'linus', 'barbara', 'ken'];

describe('speaking order', () => {
  it('keeps panel order for parallel and sequential', () => {
    assert.deepEqual(speakingOrder(workers, 'parallel', 1, 3, 'ken'), workers);
    assert.deepEqual(speakingOrder(workers, 'sequential', 1, 3, 'ada'), workers);
  });

  it('shuffles each round as a permutation, reproducibly from the seed', () => {
    const a = speakingOrder(workers, 'shuffle', 42, 2, undefined);
    assert.deepEqual([...a].sort(), [...workers].sort());
    assert.deepEqual(speakingOrder(workers, 'shuffle', 42, 2, undefined), a);
    const orders = new Set<string>();
    for (let r = 1; r <= 20; r++) orders.add(speakingOrder(workers, 'shuffle', 42, r, undefined).join(','));
    assert.ok(orders.size > 10, `expected varied orders across rounds, got ${orders.size}`);
  });

  it("never lets the previous round's last speaker go first", () => {
    for (let seed = 0; seed < 200; seed++) {
      let previousLast: string | undefined;
      for (let round = 1; round <= 10; round++) {
        const order = speakingOrder(workers, 'shuffle', seed, round, previousLast);
        assert.notEqual(order[0], previousLast, `seed ${seed} round ${round}`);
        assert.equal(new Set(order).size, workers.length);
        previousLast = order[order.length - 1];
      }
    }
    for (let seed = 0; seed < 50; seed++) {
      const two = speakingOrder(['a', 'b'], 'shuffle', seed, 2, 'a');
      assert.deepEqual(two, ['b', 'a']);
    }
  });
});
