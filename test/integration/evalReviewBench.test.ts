/**
 * `npm run bench -- review` and `roundtable eval --review` report the same billed tokens for the
 * same review: the bench's case (its repository, panel, reviewers and topic) run the bench's way
 * (a daemon, convene) and through the eval's path (the case built into a repository, reviewed on the
 * eval's private core, scored from the log), each on a fresh loopback server, and both against
 * what the servers themselves counted.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { PANEL, TOPIC, reviewServer, runOurs } from '../../bench/review';
import { BASE_FILES, CHANGE, DECISIONS, reviewRepo } from '../../bench/reviewChange';
import { checkCase, linesOf } from '../../eval/src/review/cases';
import { scoreCase } from '../../eval/src/review/record';
import { reviewCase, type ReviewSetup } from '../../eval/src/review/run';
import { evalCore } from '../../eval/src/systems';

const MYSQL = 'src/orders/db/mysqlPool.ts';

describe('one bill of a review', () => {
  it("the bench's review and the same review through the eval bill the same tokens, as the servers counted them", async () => {
    const repo = await reviewRepo();
    try {
      const bench = await runOurs(repo);
      const fake = await reviewServer();
      try {
        const c = checkCase({
          id: 'bench-review',
          title: "The review bench's change",
          base: { ...DECISIONS, ...BASE_FILES },
          change: CHANGE,
          deleted: [],
          labels: [{ file: MYSQL, lines: linesOf(CHANGE[MYSQL]!, 'mysql.createPool'), decision: '0001' }],
        });
        const setup: ReviewSetup = {
          participants: PANEL,
          topic: TOPIC,
          config: {},
          provider: () => new OpenAIProvider({ baseURL: fake.baseURL }),
        };
        const core = await evalCore(setup.provider);
        let line;
        try {
          line = await reviewCase(setup, core, c);
        } finally {
          await core.close();
        }
        const review = scoreCase(c, line, PANEL, 'blocking').systems.find((s) => s.name === 'review');
        const server = fake.requests.reduce(
          (n, q) => n + (q.usage ? q.usage.promptTokens + q.usage.completionTokens : 0),
          0,
        );
        assert.ok(bench.billedTokens && bench.billedTokens > 10_000, `the bench billed ${bench.billedTokens}`);
        assert.equal(review?.billedTokens, bench.billedTokens, 'the eval and the bench');
        assert.equal(review?.billedTokens, server, "the eval and the server's own count");
        assert.equal(review?.calls, bench.calls);
        assert.equal(review?.tp, 1, 'the MySQL pool is found, as the bench finds it');
      } finally {
        await fake.close();
      }
    } finally {
      await rm(path.dirname(repo.root), { recursive: true, force: true });
    }
  });
});
