/** Budget rules: what is left is never exceeded, and parallel calls share it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetVerdict, capText, fitToBudget, planMaxTokens } from '../../daemon/src/meeting/budget';
import { countTokens } from '../../daemon/src/providers/tokens';
import { given, opened } from '../fakes/given';

describe('budget rules', () => {
  it('fits any reply into what is left, marking a cut, and refuses when nothing is left', () => {
    const reply = 'an argument with evidence and numbers 1234 '.repeat(200);
    for (const left of [1, 5, 17, 40, 300, 5000]) {
      const fitted = fitToBudget(reply, left);
      assert.ok(fitted, `left ${left}`);
      assert.ok(fitted.tokens <= left && countTokens(fitted.text) <= left, `left ${left}: ${fitted.tokens}`);
      if (left < countTokens(reply) && left > 20) assert.match(fitted.text, /token budget ran out/);
    }
    assert.equal(fitToBudget(reply, 0), undefined);
    assert.deepEqual(fitToBudget('short', 100), { text: 'short', tokens: countTokens('short') });
  });

  it('shares what is left between parallel calls, never above the reply cap', () => {
    assert.equal(planMaxTokens(400, 1000, 4), 250);
    assert.equal(planMaxTokens(400, 10_000, 4), 400);
    assert.equal(planMaxTokens(400, 0, 4), 1, 'a call still asks for something; its reply is not recorded');
  });

  it('caps a 400 KB reply to its cap', () => {
    assert.ok(countTokens(capText('word '.repeat(80_000), 300)) <= 300);
  });

  it('announces the final round at 80% and cuts at 100%', () => {
    const s = given(...opened({ config: { tokenBudget: 1000 } }));
    assert.equal(budgetVerdict(s, 799), 'ok');
    assert.equal(budgetVerdict(s, 800), 'final_round');
    assert.equal(budgetVerdict(s, 1000), 'exhausted');
  });
});
