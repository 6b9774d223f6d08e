import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { JSDOM } from 'jsdom';
import type { MeetingEvent, MeetingState, MessageDelta } from '@roundtable/protocol';
import { evolve, fold, visibleDeep } from '@roundtable/protocol';
import type { ChatProvider, ChatRequest, ChatResult } from '../../daemon/src/providers/types';
import { loadPanel } from '../../daemon/src/panel';
import { LiveMessages } from '../../protocol/src/live';
import { ballot, panel, runMeeting, turns } from '../fakes/meetings';

// lit renders into the global document: one jsdom window for the whole file, set up before lit loads.
const dom = new JSDOM('<!DOCTYPE html><body></body>');
Object.assign(globalThis, { document: dom.window.document, window: dom.window });
type RenderModule = typeof import('../../webview/src/render');
type DigestModule = typeof import('../../webview/src/digestRender');
let renderRoom: RenderModule['renderRoom'];
let QUIET_UI: RenderModule['QUIET_UI'];
let phaseOf: RenderModule['phaseOf'];
let renderDigestView: DigestModule['renderDigestView'];

const doc = () => new JSDOM('<!DOCTYPE html><body></body>').window.document;
const text = (n: Element | null | undefined) => n?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

/** Renders like the webview does, into a fresh container. */
function room(s: MeetingState, live: LiveMessages = new LiveMessages()): HTMLElement {
  const c = dom.window.document.createElement('div');
  dom.window.document.body.append(c);
  renderRoom(c, s, live.list());
  return c;
}

type Item = { event: MeetingEvent } | { delta: MessageDelta };

/** Plays a meeting, recording events and live chunks interleaved as the daemon sends them. */
async function record(opts: Parameters<typeof runMeeting>[0], watch?: (i: Item) => void): Promise<Item[]> {
  const stream: Item[] = [];
  const push = (i: Item): void => {
    stream.push(i);
    watch?.(i);
  };
  await runMeeting({
    ...opts,
    deps: { ...opts.deps, onEvent: (event) => push({ event }), onDelta: (delta) => push({ delta }) },
  });
  return stream;
}

/**
 * Feeds a recorded stream to the room as the webview does (fold + live chunks), rendering after
 * each item into one container. Returns the container and every live kind that was shown.
 */
function replay(stream: Item[], check?: (c: HTMLElement) => void): { c: HTMLElement; shown: Set<string> } {
  const c = dom.window.document.createElement('div');
  dom.window.document.body.append(c);
  const live = new LiveMessages();
  let s = fold([]);
  const shown = new Set<string>();
  for (const item of stream) {
    if ('event' in item) {
      s = evolve(s, item.event);
      live.settle(item.event);
    } else live.delta(item.delta, s);
    renderRoom(c, s, live.list());
    for (const el of c.querySelectorAll('.message.streaming'))
      shown.add([...el.classList].find((k) => k.startsWith('kind-'))?.slice(5) ?? '?');
    check?.(c);
  }
  return { c, shown };
}

let demo: MeetingEvent[];
/** The person accepts the demo's digest as `digestText`: the event that follows the demo's log. */
function acceptedWith(digestText: string): MeetingEvent {
  return {
    type: 'decision_recorded',
    decision: 'accepted',
    digestText,
    meetingId: demo[0]?.meetingId ?? '',
    seq: demo.length + 1,
    at: Date.now(),
  };
}
let demoScript: { replies: Record<string, unknown> };
const demoPanel = () => loadPanel(path.join(__dirname, '..', '..', 'examples', 'demo-panel.json'));
before(async () => {
  ({ renderRoom, phaseOf, QUIET_UI } = await import('../../webview/src/render'));
  ({ renderDigestView } = await import('../../webview/src/digestRender'));
  // A recorded log: the shipped demo meeting, played on the scripted provider.
  demoScript = JSON.parse(
    readFileSync(path.join(__dirname, '..', '..', 'examples', 'demo-script.json'), 'utf8'),
  ) as typeof demoScript;
  const { events } = await runMeeting({
    topic: 'Should we adopt a monorepo for our three services?',
    participants: demoPanel(),
    script: { replies: demoScript.replies },
  });
  demo = events;
});

describe('room view rendering', () => {
  it('shows the topic, state, round, budget, bill, participants and every message of a recorded meeting', () => {
    const c = room(fold(demo));
    assert.equal(text(c.querySelector('.topic')), 'Should we adopt a monorepo for our three services?');
    assert.equal(text(c.querySelector('[data-testid="state"]')), 'Closed: Full consensus');
    assert.equal(text(c.querySelector('[data-testid="round"]')), 'Round 3 of 10');
    const spoken = fold(demo).spokenTokens;
    const meter = c.querySelector('[data-testid="budget"] [role="meter"]');
    assert.equal(meter?.getAttribute('aria-valuenow'), String(Math.round((spoken / 15000) * 100)));
    assert.equal(meter?.getAttribute('aria-label'), `Spoken ${spoken.toLocaleString('en-US')} of 15,000 tokens`);
    assert.match(text(c.querySelector('[data-testid="budget"]')), /\/ 15,000 tokens/);
    assert.match(text(c.querySelector('[data-testid="bill"]')), /^billed [\d,]+ tokens/);
    assert.equal(c.querySelectorAll('.participant').length, 5);
    assert.match(text(c.querySelector('.participant.role-judge')), /jude judge · scripted:scripted/);
    const posted = demo.filter((e) => e.type === 'message_posted').length;
    const judged = demo.filter((e) => e.type === 'judge_feedback' && (e.text || e.converged)).length;
    assert.equal(c.querySelectorAll('[data-testid="messages"] .message').length, posted + judged);
    assert.equal(c.querySelector('[data-testid="messages"]')?.getAttribute('aria-live'), 'polite');
    assert.match(text(c.querySelector('[data-testid="judge"]')), /@grace/);
    // The digest as the review shows it: sections, rendered, not the log's label lines.
    const digest = c.querySelector('[data-testid="digest"]');
    assert.deepEqual(
      [...(digest?.querySelectorAll('h2') ?? [])].map((h) => h.textContent),
      ['Outcome', 'Dissent', 'Contributions', 'Standing', 'Was the debate worth it?'],
    );
    assert.doesNotMatch(text(digest), /TOPIC:|CONSENSUS:/);
    assert.match(text(c.querySelector('[data-testid="closed"]')), /Ended: Full consensus/);
    assert.doesNotMatch(text(c), /consensus_full/);
  });

  it("shows the accepted digest once decided, and a model's HTML in the digest as text", () => {
    const s = fold([...demo, acceptedWith('## Outcome\n\nAdopt it, **billing first**')]);
    const digest = room(s).querySelector('[data-testid="digest"]');
    assert.equal(text(digest), 'Outcome Adopt it, billing first');
    assert.equal(text(digest?.querySelector('strong')), 'billing first');
    const hostile = fold(demo);
    hostile.digest = hostile.digest && {
      ...hostile.digest,
      digest: { ...hostile.digest.digest, consensusStatement: '<img src=x onerror=alert(1)> ## Injected' },
    };
    const shown = room(hostile).querySelector('[data-testid="digest"]');
    assert.equal(shown?.querySelectorAll('img, script').length, 0);
    assert.match(text(shown), /<img src=x onerror=alert\(1\)> ## Injected/);
  });

  it('fills the stance matrix agent × round from the log', () => {
    const table = room(fold(demo)).querySelector('[data-testid="stances"]');
    // What is seen: the stance, with ↺ where the worker changed position (the rest is for screen readers).
    const seen = (x: Element) => {
      const copy = x.cloneNode(true) as Element;
      copy.querySelectorAll('.visually-hidden').forEach((e) => e.remove());
      return text(copy);
    };
    const rows = [...(table?.querySelectorAll('tbody tr') ?? [])].map((r) => [...r.children].map(seen));
    assert.deepEqual(rows, [
      ['ada', 'AGREE', 'AGREE', 'AGREE'],
      ['grace', 'DISAGREE', '↺NEUTRAL', '↺AGREE'],
      ['linus', 'NEUTRAL', 'NEUTRAL', '↺AGREE'],
    ]);
    assert.ok(table?.querySelector('td.stance-DISAGREE'));
    const graceR2 = table?.querySelectorAll('tbody tr')[1]?.children[2];
    assert.equal(
      text(graceR2?.querySelector('.visually-hidden')),
      '(changed from DISAGREE)',
      'a screen reader hears the change',
    );
    assert.equal(graceR2?.getAttribute('title'), 'grace DISAGREE → NEUTRAL in round 2 after ada, linus, the judge');
  });

  it('says whether the debate changed the outcome, who changed position after whom, and flags possible conformity', async () => {
    const c = room(fold(demo));
    const debate = c.querySelector('[data-testid="debate"]');
    assert.match(
      text(debate),
      /^Debate changed the outcome: yes — round 1: no majority · final: AGREE · rounds after the first cost [\d,]+ billed tokens/,
    );
    assert.deepEqual(
      [...(debate?.querySelectorAll('.flips li') ?? [])].map((li) => text(li)),
      [
        'grace DISAGREE → NEUTRAL in round 2 after ada, linus, the judge',
        'grace NEUTRAL → AGREE in round 3 after ada, linus, the judge',
        'linus NEUTRAL → AGREE in round 3 after ada, grace, the judge',
      ],
    );
    assert.equal(debate?.querySelector('.flag'), null, 'each flip followed a judge note: no conformity flagged');

    // Round 2: ada alone repeats round 1 word for word, after no judge note: grace's flip to the
    // majority is flagged, in the list and in her cell, while the meeting runs.
    const same = 'Atomic commits across services matter most.';
    const { events } = await runMeeting({
      config: { maxRounds: 3 },
      participants: panel(['ada', 'grace', 'linus'], false),
      script: {
        replies: {
          ada: [`${same} [STANCE: AGREE]`, `${same} [STANCE: AGREE]`, `${same} [STANCE: AGREE]`],
          grace: [`${same} [STANCE: DISAGREE]`, `I go with the others. [STANCE: AGREE]`, `Still. [STANCE: AGREE]`],
          linus: [`${same} [STANCE: AGREE]`, `No: too risky. [STANCE: DISAGREE]`, `Still no. [STANCE: DISAGREE]`],
        },
      },
    });
    const running = events.slice(
      0,
      events.findIndex((e) => e.type === 'round_started' && e.round === 3),
    );
    const live = room(fold(running));
    const d = live.querySelector('[data-testid="debate"]');
    assert.match(text(d), /^Debate has changed the outcome: no — round 1: AGREE · now: AGREE/);
    assert.match(
      text(d?.querySelector('.flips li.conformity')),
      /^grace DISAGREE → AGREE in round 2 after ada, linus possible conformity$/,
    );
    assert.ok(live.querySelector('[data-testid="stances"] td.flipped.conformity'), "grace's round-2 cell is marked");
    assert.equal(
      room(
        fold(
          events.slice(
            0,
            events.findIndex((e) => e.type === 'round_started' && e.round === 2),
          ),
        ),
      ).querySelector('[data-testid="debate"]'),
      null,
      'nothing to say after round 1 alone',
    );
  });

  it('strips the stance marker from the text and shows the parsed stance as a badge', () => {
    const c = room(fold(demo));
    const ada = c.querySelector('[data-message-id="r1-ada"]');
    assert.doesNotMatch(text(ada?.querySelector('.message-body')), /STANCE/);
    assert.equal(text(ada?.querySelector('.stance-badge')), 'AGREE');
    assert.ok(ada?.querySelector('.stance-badge.stance-AGREE'));
    const grace = c.querySelector('[data-message-id="r1-grace"] .stance-badge.stance-DISAGREE');
    assert.equal(text(grace), 'DISAGREE');
  });

  it('renders agent Markdown, keeps raw HTML as text and only follows http(s) links', async () => {
    const hostile = [
      '**Bold claim** with `code`',
      '<img src=x onerror="alert(1)"><script>alert(2)</script>',
      '[bad](javascript:alert(3)) [good](https://example.com/a) ![pic](https://example.com/p.png)',
      '[STANCE: AGREE]',
    ].join('\n\n');
    const { events } = await runMeeting({
      config: { maxRounds: 1 },
      script: { replies: { ada: [hostile], grace: turns(1, 'AGREE'), linus: turns(1, 'AGREE') } },
    });
    const body = room(fold(events)).querySelector('[data-message-id="r1-ada"] .message-body');
    assert.equal(text(body?.querySelector('strong')), 'Bold claim');
    assert.equal(text(body?.querySelector('code')), 'code');
    assert.equal(body?.querySelector('img'), null);
    assert.equal(body?.querySelector('script'), null);
    assert.match(text(body), /<img src=x onerror="alert\(1\)"><script>alert\(2\)<\/script>/);
    // The image is not loaded: it stays a plain link a person may click.
    const links = [...(body?.querySelectorAll('a') ?? [])].map((a) => a.getAttribute('href'));
    assert.deepEqual(links, ['https://example.com/a', 'https://example.com/p.png']);
    assert.doesNotMatch(text(body), /STANCE/);
  });

  it('lets no bidi control reach the DOM: raw (made visible on arrival) or spelled as an entity in the Markdown', async () => {
    const flipped = 'I &#x202E;EERGASID&#x202C; and \u202eEERGA\u202c, &#8207;&#x2066;x&#x2069; [STANCE: AGREE]';
    const { events } = await runMeeting({
      config: { maxRounds: 1 },
      script: { replies: { ada: [flipped], grace: turns(1, 'AGREE'), linus: turns(1, 'AGREE') } },
    });
    // As room.ts does with every message from the extension: bidi controls as escapes on arrival.
    const c = room(fold(visibleDeep(events)));
    const body = c.querySelector('[data-message-id="r1-ada"] .message-body');
    assert.match(text(body), /I ⟨U\+202E⟩EERGASID⟨U\+202C⟩ and ⟨U\+202E⟩EERGA⟨U\+202C⟩/);
    assert.doesNotMatch(c.textContent ?? '', /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    assert.doesNotMatch(c.innerHTML, /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/, 'nor in an attribute');
  });

  it('lists the attached context, and shows each workspace tool call before the message it informed, as plain text', () => {
    const meetingId = demo[0]?.meetingId ?? '';
    const ev = (body: Record<string, unknown>) => ({ meetingId, seq: 0, at: 0, ...body }) as unknown as MeetingEvent;
    const events = [...demo];
    const openedAt = events.findIndex((e) => e.type === 'meeting_opened');
    events.splice(
      openedAt + 1,
      0,
      ev({
        type: 'context_attached',
        items: [
          { kind: 'file', path: 'src/app.ts', sha256: 'a'.repeat(64), tokens: 1200, text: 'x', truncated: true },
          { kind: 'note', sha256: 'b'.repeat(64), tokens: 12, text: 'we ship weekly', truncated: false },
        ],
        refused: [{ path: '.env', reason: 'looks like a secret (keys, .env, credentials)' }],
        budget: 8000,
        cut: 'src/app.ts was cut to 1,200 tokens',
      }),
    );
    const adaAt = events.findIndex((e) => e.type === 'message_posted' && e.messageId === 'r1-ada');
    events.splice(
      adaAt,
      0,
      ev({
        type: 'tool_called',
        round: 1,
        participant: 'ada',
        tool: 'read_file',
        args: JSON.stringify({ path: '<img src=x onerror=alert(1)>.ts', startLine: 1, endLine: 3 }),
        ok: true,
        result: 'src/app.ts lines 1-3 of 3\n1: export const answer = 42;',
        tokens: 20,
      }),
      ev({
        type: 'tool_called',
        round: 1,
        participant: 'ada',
        tool: 'read_file',
        args: '{"path":"../outside.txt"}',
        ok: false,
        result: 'refused: ../outside.txt is outside the workspace',
        tokens: 9,
      }),
    );
    const c = room(fold(events.map((e, i) => ({ ...e, seq: i + 1 }))));

    const context = c.querySelector('[data-testid="context"]');
    assert.equal(context?.getAttribute('title'), 'Context: 2 items, 1,212 tokens, 1 refused');
    assert.deepEqual(
      [...(context?.querySelectorAll('li') ?? [])].map((li) => text(li)),
      [
        'file src/app.ts · 1,200 tokens (cut)',
        'note note · 12 tokens',
        'refused .env: looks like a secret (keys, .env, credentials)',
      ],
    );
    assert.equal(text(context?.querySelector('.context-cut')), 'src/app.ts was cut to 1,200 tokens');

    const ids = [...c.querySelectorAll('[data-testid="messages"] .message')].map((m) =>
      m.getAttribute('data-message-id'),
    );
    const ada = ids.indexOf('r1-ada');
    assert.ok(ids[ada - 2]?.startsWith('tool:') && ids[ada - 1]?.startsWith('tool:'), ids.join(' '));
    const [read, refused] = [...c.querySelectorAll('.message.kind-tool, .message.kind-tool-refused')];
    assert.equal(
      text(read?.querySelector('.message-body')),
      'read_file <img src=x onerror=alert(1)>.ts lines 1-3 → src/app.ts lines 1-3 of 3',
    );
    assert.equal(read?.querySelector('img'), null, 'a path a model wrote is text, never markup');
    assert.ok(refused?.classList.contains('kind-tool-refused'));
    assert.equal(
      text(refused?.querySelector('.message-body')),
      'read_file ../outside.txt → refused: ../outside.txt is outside the workspace',
    );
    assert.match(text(read?.querySelector('.message-head')), /^ada read the workspace · round 1/);
  });

  it('leaves a selection, the element and an opened section in place when the next chunk arrives', () => {
    const upTo = demo.findIndex((e) => e.type === 'round_started' && e.round === 2);
    // A compaction's summary of round 1, shown here during round 2's turns (the short demo never
    // compacts, so it is written here), so there is a section to keep open.
    const summary: MeetingEvent = {
      type: 'summary_updated',
      round: 1,
      text: 'Positions after round 1:\n- ada: one atomic commit per change\n- grace: releases would couple',
      tokens: 20,
      meetingId: demo[0]?.meetingId ?? '',
      seq: 0,
      at: demo[upTo]?.at ?? 0,
    };
    const s = fold([...demo.slice(0, upTo + 1), { ...summary, seq: (demo[upTo]?.seq ?? 0) + 1 }]);
    const live = new LiveMessages();
    const chunk = (t: string): MessageDelta => ({
      meetingId: s.meetingId,
      messageId: 'r2-ada',
      purpose: 'turn',
      from: 'ada',
      round: 2,
      text: t,
    });
    live.delta(chunk('Still '), s);
    const c = dom.window.document.createElement('div');
    dom.window.document.body.append(c);
    renderRoom(c, s, live.list());
    const article = c.querySelector('[data-message-id="r1-grace"]');
    const textNode = article?.querySelector('.message-body p')?.firstChild;
    assert.ok(textNode && textNode.nodeType === dom.window.Node.TEXT_NODE);
    const range = dom.window.document.createRange();
    range.setStart(textNode, 0);
    range.setEnd(textNode, 10);
    const sel = dom.window.getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
    const selected = sel?.toString();
    c.querySelector('[data-testid="summary"]')?.setAttribute('open', '');

    live.delta(chunk('agree.'), s);
    renderRoom(c, s, live.list());
    assert.equal(text(c.querySelector('.message.streaming .message-body')), 'Still agree.');
    assert.equal(c.querySelector('[data-message-id="r1-grace"]'), article, 'the same element, not a new one');
    assert.ok(textNode.isConnected);
    assert.equal(sel?.rangeCount, 1);
    assert.equal(sel?.toString(), selected);
    assert.ok(c.querySelector('[data-testid="summary"]')?.hasAttribute('open'), 'the rolling summary stays open');

    // The live entry becomes the posted message in the same element.
    const streaming = c.querySelector('[data-message-id="r2-ada"]');
    const s2 = fold(demo.slice(0, demo.findIndex((e) => e.type === 'message_posted' && e.messageId === 'r2-ada') + 1));
    for (const e of demo.slice(upTo + 1, s2.lastSeq)) live.settle(e);
    renderRoom(c, s2, live.list());
    assert.equal(c.querySelector('[data-message-id="r2-ada"]'), streaming);
    assert.equal(c.querySelector('.message.streaming'), null);
  });

  it('says "Final round" only once the announced final round runs, not in the round that crosses 80%', async () => {
    const long = (st: string) => Array.from({ length: 10 }, (_, i) => `${'word '.repeat(60)}${i}\n[STANCE: ${st}]`);
    const { events } = await runMeeting({
      config: { tokenBudget: 1000, stopWhenStable: false },
      participants: panel(['ada', 'grace'], false),
      script: { replies: { ada: long('AGREE'), grace: long('DISAGREE') } },
    });
    const warned = events.findIndex((e) => e.type === 'budget_warning');
    const crossing = fold(events.slice(0, warned + 2));
    assert.equal(phaseOf(crossing), 'running');
    const before = room(crossing);
    assert.equal(text(before.querySelector('[data-testid="state"]')), 'Running');
    assert.match(text(before.querySelector('[data-testid="budget"]')), /round \d+ is the last/);
    assert.match(text(before.querySelector('[data-testid="messages"]')), /Final round — make it count/);
    const next = events.findIndex((e, i) => i > warned && e.type === 'round_started');
    assert.ok(next > 0, 'the announced final round starts');
    const last = fold(events.slice(0, next + 1));
    assert.equal(phaseOf(last), 'final_round');
    const during = room(last);
    assert.equal(text(during.querySelector('[data-testid="state"]')), 'Final round');
    assert.ok(during.querySelector('.budget-final'));
  });

  it('asks before cutting, keeps Cut away from Post, and copies a message as written', () => {
    const running = fold(demo.slice(0, demo.findIndex((e) => e.type === 'round_started') + 1));
    const calls: string[] = [];
    const ui = {
      ...QUIET_UI,
      onCut: () => calls.push('cut?'),
      onCutAnswer: (yes: boolean) => calls.push(yes ? 'cut!' : 'kept'),
      onCopy: (t: string) => calls.push(`copy ${t}`),
    };
    const c = dom.window.document.createElement('div');
    renderRoom(c, running, [], ui);
    const cut = c.querySelector<HTMLButtonElement>('header #cut');
    assert.equal(cut?.getAttribute('aria-label'), 'Cut the meeting');
    cut?.click();
    assert.deepEqual(calls, ['cut?'], 'the first click only asks');
    renderRoom(c, running, [], { ...ui, confirmingCut: true });
    assert.match(text(c.querySelector('.cut-confirm')), /Cut the meeting\? Yes, cut No/);
    c.querySelector<HTMLButtonElement>('#cut-no')?.click();
    c.querySelector<HTMLButtonElement>('#cut-yes')?.click();
    assert.deepEqual(calls.slice(1), ['kept', 'cut!']);

    const closed = dom.window.document.createElement('div');
    renderRoom(closed, fold(demo), [], ui);
    assert.equal(closed.querySelector('#cut'), null, 'no Cut once the meeting is over');
    closed.querySelector<HTMLButtonElement>('[data-message-id="r1-ada"] button.copy')?.click();
    const raw = demo.find((e) => e.type === 'message_posted' && e.messageId === 'r1-ada');
    assert.ok(raw?.type === 'message_posted');
    assert.equal(calls.at(-1), `copy ${raw.text}`);
  });

  it('shows an empty room before any meeting', () => {
    assert.match(text(room(fold([]))), /Start Roundtable/);
  });
});

describe('live text in the room', () => {
  it('a roundtable: briefing, turns, judge, summary and digest are shown while written, none left after close', async () => {
    // A low compaction threshold, so the demo writes a summary to show live.
    const stream = await record({
      participants: demoPanel(),
      config: { compactAtTokens: 100 },
      script: { replies: demoScript.replies },
    });
    const judgeReplies = (demoScript.replies.jude as string[]).map((t) => t.replace(/\s+/g, ' ').trim());
    const { c, shown } = replay(stream, (c) => {
      for (const el of c.querySelectorAll('.message.streaming.kind-judge')) {
        const t = text(el.querySelector('.message-body'));
        assert.ok(
          judgeReplies.some((r) => r.startsWith(t)),
          `the judge's live text is one round's reply, not several: ${t}`,
        );
      }
      for (const el of c.querySelectorAll('.message.streaming.kind-summary'))
        assert.ok((text(el).match(/Positions after round/g) ?? []).length <= 1, 'one summary at a time');
    });
    for (const k of ['briefing', 'turn', 'judge', 'summary', 'digest']) assert.ok(shown.has(k), `${k} was shown live`);
    assert.ok(c.querySelector('[data-testid="closed"]'));
    assert.equal(c.querySelectorAll('.message.streaming').length, 0);
    assert.doesNotMatch(text(c), /writing|CONSENSUS_STATEMENT/);
  });

  it('a consensus vote: proposals and ballots are shown while written, none left after close', async () => {
    const vote = ballot(['O1', 'accept', 0.9], ['O2', 'reject', 0.8]);
    const stream = await record({
      mode: 'consensus',
      participants: panel(['ada', 'grace'], false),
      deps: { checkEvidence: () => Promise.resolve('exists') },
      script: {
        replies: {
          ada: [JSON.stringify({ options: ['Monorepo', 'Polyrepo'] }), vote, vote],
          grace: [JSON.stringify({ options: ['Monorepo', 'Polyrepo'] }), vote, vote],
        },
      },
    });
    const { c, shown } = replay(stream);
    for (const k of ['proposal', 'ballot', 'digest']) assert.ok(shown.has(k), `${k} was shown live`);
    assert.equal(c.querySelectorAll('.message.streaming').length, 0);
  });

  it('a cut mid-turn and a failed turn leave nothing being written, even with a chunk arriving late', async () => {
    let failed: () => void = () => undefined;
    const graceFailed = new Promise<void>((r) => (failed = r));
    const hanging: ChatProvider = {
      id: 'hanging',
      chat(req: ChatRequest): Promise<ChatResult> {
        if (req.meta.purpose !== 'turn')
          return Promise.resolve({ text: 'ok', usage: { promptTokens: 1, completionTokens: 1, source: 'estimate' } });
        if (req.meta.participant === 'grace') {
          req.onDelta?.('half a thought', 'reply');
          return Promise.reject(new Error('the server went away'));
        }
        req.onDelta?.('I am still ', 'reply');
        return new Promise((_, reject) =>
          req.signal.addEventListener('abort', () => {
            req.onDelta?.('late chunk', 'reply'); // a chunk that was in flight when the cut landed
            reject(new Error('aborted'));
          }),
        );
      },
    };
    const stream = await record(
      {
        participants: panel(['ada', 'grace'], false),
        provider: hanging,
        script: {},
        during: async (m) => {
          await graceFailed;
          await m.cut();
        },
      },
      (i) => {
        if ('event' in i && i.event.type === 'turn_failed') failed();
      },
    );
    const { c, shown } = replay(stream);
    assert.ok(shown.has('turn'));
    assert.ok(stream.some((i) => 'event' in i && i.event.type === 'turn_failed'));
    assert.equal(text(c.querySelector('[data-testid="state"]')), 'Closed: Cut');
    assert.equal(c.querySelectorAll('.message.streaming').length, 0);
    assert.doesNotMatch(text(c), /late chunk|half a thought/);
  });
});

describe('digest review rendering', () => {
  it('offers the editable digest with Accept, Reject and Another Round', () => {
    const view = renderDigestView(doc(), fold(demo));
    const area = view.querySelector('#digest-text') as HTMLTextAreaElement;
    assert.match(area.value, /^## Outcome\n/);
    // The person decides knowing whether the extra rounds bought anything, and who moved.
    assert.match(
      area.value,
      /\n## Was the debate worth it\?\n\nDebate changed the outcome: yes \(round 1 majority: no majority; final: AGREE\) · rounds after the first cost [\d,]+ billed tokens · changed position: grace DISAGREE → NEUTRAL in round 2/,
    );
    for (const id of ['#accept', '#reject', '#another', '#instruction']) assert.ok(view.querySelector(id), id);
  });

  it('shows the decision instead of buttons once recorded', () => {
    const view = renderDigestView(doc(), fold([...demo, acceptedWith('EDITED')]));
    assert.equal(view.querySelector('#accept'), null);
    assert.match(text(view.querySelector('[data-testid="decided"]')), /accepted/);
    assert.equal((view.querySelector('#digest-text') as HTMLTextAreaElement).value, 'EDITED');
  });

  it('shows the voting matrix, verdicts, conflicts and the escalation choices of a consensus meeting', async () => {
    const b = (o1: string, c1: number, o2: string, c2: number, file: string) =>
      JSON.stringify({
        votes: [
          { option: 'O1', vote: o1, confidence: c1, rationale: 'r', evidence: [{ file }] },
          { option: 'O2', vote: o2, confidence: c2, rationale: 'r' },
        ],
      });
    const { events } = await runMeeting({
      mode: 'consensus',
      options: ['Monorepo', 'Polyrepo'],
      participants: panel(['ada', 'grace'], false),
      deps: { checkEvidence: () => Promise.resolve('exists') },
      script: {
        replies: {
          ada: Array<string>(3).fill(b('accept', 0.95, 'reject', 0.5, 'a.ts')),
          grace: Array<string>(3).fill(b('reject', 0.95, 'accept', 0.5, 'a.ts')),
        },
      },
    });
    const s = fold(events);
    assert.equal(s.status, 'awaiting_human');
    const view = renderDigestView(doc(), s);
    const rows = [...(view.querySelector('[data-testid="matrix"] tbody')?.children ?? [])].map((r) => r.textContent);
    assert.deepEqual(rows, ['adaaccept (0.95)reject (0.50)', 'gracereject (0.95)accept (0.50)']);
    assert.match(text(view.querySelector('[data-testid="conflicts"]')), /C1 critical contradiction/);
    assert.match(text(view.querySelector('[data-testid="reasons"]')), /critical conflict/);
    assert.deepEqual(
      [...view.querySelectorAll('#option option')].map((o) => o.getAttribute('value')),
      ['O1', 'O2'],
    );
    for (const id of ['#pick', '#resolve-another', '#defer']) assert.ok(view.querySelector(id), id);
    const c = room(s);
    assert.equal(text(c.querySelector('[data-testid="state"]')), 'Awaiting your decision');
    assert.match(text(c.querySelector('[data-testid="escalation"]')), /Needs your decision/);
  });
});
