/**
 * Property test: no text from an event can change the structure of a document written from a
 * meeting. Hostile strings (HTML that closes our quotes and details, headings, lists, tables,
 * fences, forged room headers, control characters, newlines in one-line fields) go into every text
 * field of real meeting logs; the minutes, consensus report, digest, MADR record and MANIFEST line
 * are rendered and parsed with markdown-it (`html: true`), and their block structure must equal that
 * of the same meetings rendered with benign text.
 */
import { rng as prng } from '@roundtable/protocol/random';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import MarkdownIt from 'markdown-it';
import type { MeetingEvent } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { renderDigest } from '../../daemon/src/meeting/digest';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { MANIFEST_KEYS, manifestLine } from '@roundtable/protocol/manifest';
import { decisionRecord } from '../../extension/src/decisionRecord';
import { digestMarkdown } from '@roundtable/protocol/digestMarkdown';
import { ballot, panel, runMeeting, turns } from '../fakes/meetings';
import { hostileText } from '../fakes/hostileText';

type Gen = () => string;

/** Every text field of every event replaced by `gen()`; optional notes and evidence added so both renderings have them. */
function withText(events: MeetingEvent[], gen: Gen): MeetingEvent[] {
  return events.map((original) => {
    const e = structuredClone(original);
    switch (e.type) {
      case 'meeting_opened':
        e.topic = gen();
        for (const p of e.participants) p.model = gen();
        if (e.options) e.options = e.options.map(() => gen());
        break;
      case 'message_posted':
      case 'human_posted':
      case 'summary_updated':
        e.text = gen();
        break;
      case 'judge_feedback':
        e.text = gen();
        for (const c of e.corrections) c.text = gen();
        if (e.converged !== undefined) e.converged = gen();
        break;
      case 'turn_failed':
      case 'meeting_interrupted':
        e.detail = gen();
        break;
      case 'meeting_closed':
        e.detail = gen();
        break;
      case 'digest_ready':
        e.digest = {
          ...e.digest,
          topic: gen(),
          consensusStatement: gen(),
          dissent: gen(),
          contributors: gen(),
        };
        e.text = renderDigest(e.digest);
        break;
      case 'decision_recorded':
        e.instruction = gen();
        e.digestText = gen();
        break;
      case 'options_proposed':
        e.options = e.options.map(() => gen());
        break;
      case 'options_set':
        for (const o of e.options) o.label = gen();
        break;
      case 'ballot_recorded':
        if (e.invalidReason !== undefined) e.invalidReason = gen();
        for (const v of e.votes) {
          v.rationale = gen();
          v.uncertainty = gen();
          v.compromise = gen();
          v.assumptions = [gen(), gen()];
          if (v.evidence.length === 0) v.evidence.push({ file: 'f', status: 'missing' });
          for (const ev of v.evidence) {
            ev.file = gen();
            ev.section = gen();
            ev.type = gen();
          }
        }
        break;
      case 'verdict_computed':
        e.reasons = e.reasons.map(() => gen());
        for (const c of e.conflicts) c.resolution = gen();
        break;
      case 'escalated':
        e.reasons = e.reasons.map(() => gen());
        break;
      case 'human_resolved':
        e.instruction = gen();
        break;
      default:
        break;
    }
    return e;
  });
}

const md = new MarkdownIt({ html: true });

/**
 * The block structure of a document: every block token with its nesting level (paragraph
 * boundaries aside: a blank line inside quoted text only splits a paragraph), the content of raw
 * HTML blocks, fence info strings, and any inline HTML, image or link.
 */
function structure(doc: string): string[] {
  const out: string[] = [];
  for (const t of md.parse(doc, {})) {
    if (t.type === 'paragraph_open' || t.type === 'paragraph_close') continue;
    if (t.type === 'inline') {
      for (const c of t.children ?? [])
        if (c.type === 'html_inline' || c.type === 'image' || c.type === 'link_open')
          out.push(`${t.level} ${c.type} ${c.content}`);
      continue;
    }
    const extra = t.type === 'html_block' ? ` ${t.content.trim()}` : t.type === 'fence' ? ` ${t.info}` : '';
    out.push(`${t.level} ${t.type}${extra}`);
  }
  return out;
}

function documents(events: MeetingEvent[]): Record<string, string> {
  const s = fold(events);
  // The digest is plain text (six labelled lines, checked below); as Markdown it lives in the
  // minutes' and the MADR record's code blocks, which are checked here.
  const docs: Record<string, string> = { minutes: renderMinutes(fold(events)) };
  // The record is written from the digest as the review shows it (Markdown built from the event text).
  const reviewed = s.digest ? digestMarkdown(s) : renderDigest({ ...benignDigest });
  const madr = decisionRecord({
    state: s,
    digestText: reviewed,
    minutesLink: '../roundtable/minutes.md',
    decidedBy: 'Ada Lovelace',
  });
  // The front matter lists each distinct model once, so its length follows the text; its grammar
  // is checked line by line (and for HTML) in decisionRecord.test.ts. The body is checked here.
  docs.madr = madr.slice(madr.indexOf('\n---\n', 3) + 5);
  return docs;
}

const benignDigest = {
  topic: 't',
  consensus: 'NONE' as const,
  consensusStatement: 's',
  dissent: 'd',
  contributors: 'c',
  confidence: 0,
  tokensUsed: 0,
  tokenBudget: 1,
  terminatedBy: 'max_rounds' as const,
};

function append(events: MeetingEvent[], body: Record<string, unknown>): MeetingEvent[] {
  const last = events.at(-1) as MeetingEvent;
  return [...events, { ...body, meetingId: last.meetingId, seq: last.seq + 1, at: last.at + 1 } as MeetingEvent];
}

describe('documents written from a meeting keep their structure whatever the event text holds', () => {
  const logs: Record<string, MeetingEvent[]> = {};

  before(async () => {
    // A roundtable with a judge's corrections, a CONVERGED reason, a human post, an interruption and a decision.
    const rt = await runMeeting({
      script: {
        replies: {
          ada: turns(5, 'AGREE'),
          grace: turns(5, 'DISAGREE'),
          linus: turns(5, 'NEUTRAL'),
          jude: ['@grace: cite a source — give one', 'CONVERGED: positions are stable'],
        },
      },
      during: async (m) => void (await m.postHuman('Consider the CI cost too.')),
    });
    let events = append(rt.events, { type: 'meeting_interrupted', detail: 'x' });
    events = append(events, { type: 'decision_recorded', decision: 'accepted', instruction: 'x', digestText: 'x' });
    logs.roundtable = events;

    // A consensus meeting that escalates (blocked), and the same one after the human's pick.
    const split = {
      replies: {
        ada: Array<string>(3).fill(ballot(['O1', 'accept', 0.7, ['src/db.ts']], ['O2', 'reject', 0.7])),
        grace: Array<string>(3).fill(ballot(['O1', 'reject', 0.7, ['BENCH.md']], ['O2', 'accept', 0.7])),
        linus: ['not a ballot', 'still not a ballot', ballot(['O1', 'abstain', 0], ['O2', 'abstain', 0])],
      },
    };
    const c = await runMeeting({
      mode: 'consensus',
      options: ['PostgreSQL', 'SQLite'],
      participants: panel(['ada', 'grace', 'linus'], false),
      script: split,
    });
    assert.equal(c.state.status, 'awaiting_human', 'the fixture escalates');
    logs.blocked = c.events;
    await c.meeting.resolve('pick', { option: 'O2' });
    await c.meeting.run();
    logs.resolved = await c.store.load(c.meeting.id);
  });

  it('renders every hostile variant with the structure of the benign one (minutes, report, digest, MADR)', () => {
    let n = 0;
    for (const [name, events] of Object.entries(logs)) {
      const benign = documents(withText(events, () => 'plain words'));
      const benignShape = Object.fromEntries(Object.entries(benign).map(([k, v]) => [k, structure(v)]));
      for (let seed = 1; seed <= 40; seed++) {
        const rand = prng(seed * 7919 + name.length);
        const hostile = documents(withText(events, () => hostileText(rand)));
        for (const [doc, text] of Object.entries(hostile)) {
          assert.deepEqual(structure(text), benignShape[doc], `${name} ${doc}, seed ${seed}:\n${text}`);
          n++;
        }
      }
    }
    assert.ok(n >= 3 * 40 * 2, `rendered ${n} hostile documents`);
  });

  it('keeps the digest to its six labelled lines', () => {
    const rand = prng(42);
    for (let i = 0; i < 200; i++) {
      const text = renderDigest({
        ...benignDigest,
        topic: hostileText(rand),
        consensusStatement: hostileText(rand),
        dissent: hostileText(rand),
        contributors: hostileText(rand),
      });
      assert.deepEqual(
        text.split('\n').map((l) => l.split(':')[0]),
        ['TOPIC', 'CONSENSUS', 'DISSENT', 'CONTRIBUTORS', 'CONFIDENCE', 'TOKEN COST'],
        text,
      );
    }
  });

  it('writes the MANIFEST entry as one JSON line with exactly the seed keys', () => {
    for (const name of ['blocked', 'resolved']) {
      for (let seed = 1; seed <= 40; seed++) {
        const rand = prng(seed);
        const s = fold(withText(logs[name] ?? [], () => hostileText(rand)));
        const line = manifestLine(s, hostileText(rand));
        assert.doesNotMatch(line, /[\n\r\u2028\u2029]/, `seed ${seed}`);
        const entry = JSON.parse(line) as Record<string, unknown>;
        assert.deepEqual(Object.keys(entry), [...MANIFEST_KEYS]);
        assert.equal(entry.status, name === 'blocked' ? 'blocked' : 'complete');
        assert.equal(entry.agent_type, 'analysis');
      }
    }
  });

  it('shows hostile text as text: the forged pieces are still readable in the rendered HTML', () => {
    const events = withText(logs.resolved ?? [], () => '</blockquote><img src=x onerror=alert(1)> # not a heading');
    const html = md.render(renderMinutes(fold(events)));
    assert.ok(!html.includes('<img'), 'no element from agent text');
    assert.ok(html.includes('&lt;/blockquote&gt;&lt;img src=x onerror=alert(1)&gt; # not a heading'));
  });
});
