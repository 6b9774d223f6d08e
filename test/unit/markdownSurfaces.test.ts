/**
 * Model text in every Markdown surface (issue 32): the minutes, `deliberate`'s and `review`'s MCP answers, the
 * chat's round tables and digest report (also the language model tool's answer), the review's
 * editable digest and the decision record. Each is rendered as a permissive client would — markdown-it
 * with raw HTML on and linkify on (bare URLs, `www.`, fuzzy domains and e-mail addresses) — and
 * no hostile text may come out as a link, an image, an element, or a bidi control decoded from an
 * entity. The room's own renderer (webview) is checked for entities too. And as GitHub renders them
 * (test/fakes/githubMarkdown.ts), with the pull-request comment among them: no model text mentions
 * a user or a team or references an issue.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JSDOM } from 'jsdom';
import MarkdownIt from 'markdown-it';
import type { ConveneResult } from '@roundtable/client';
import type { Digest, EventBody, MeetingState } from '@roundtable/protocol';
import { initialState, fold } from '@roundtable/protocol';
import { digestMarkdown } from '@roundtable/protocol/digestMarkdown';
import { cell, inline, paragraph, quote } from '@roundtable/protocol/markdown';
import { deliberateReport } from '../../mcp/src/deliberateReport';
import { reviewReport } from '../../mcp/src/reviewReport';
import { minutesFileBase, renderMinutes } from '@roundtable/protocol/minutes';
import { roundTable } from '../../extension/src/chat/render';
import { digestReport } from '../../extension/src/conveneReport';
import { decisionRecord } from '../../extension/src/decisionRecord';
import { markdownHtml } from '../../webview/src/markdown';
import { reviewMarkdown } from '../../daemon/src/review/markdown';
import { githubHtml, githubReferences } from '../fakes/githubMarkdown';
import { logOf, opened, roundSaid } from '../fakes/given';
import { panel } from '../fakes/meetings';

const md = new MarkdownIt({ html: true, linkify: true });
/** The review's editor shows a model's HTML as typed and renders it as text (html off), as the review does. */
const asReviewed = new MarkdownIt({ html: false, linkify: true });
const ANY_BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Hostile model text, each a way a renderer could be made to link, load or run something. */
const HOSTILE: Record<string, string> = {
  'a bare https URL': 'see https://evil.example/steal?k=1 now',
  'an upper-case scheme': 'HTTP://EVIL.EXAMPLE/X',
  'an ftp URL': 'ftp://files.evil.example/x',
  'www. without a scheme': 'go to www.evil.com today',
  'www. before digits': 'www.123.example',
  'a bare domain (linkify fuzzy link)': 'visit evil.com or docs.evil.io',
  'a file name that reads as a domain': 'edit main.ts and app.io',
  'an internationalized domain': 'зайди на evil.рф',
  'a protocol-relative URL': 'load //evil.com/x.js',
  'an e-mail address': 'mail attacker@evil.com',
  'a mailto: URI': 'mailto:root@localhost',
  'an angle-bracket autolink': '<https://evil.com>',
  'an angle-bracket e-mail autolink': '<attacker@evil.com>',
  'an explicit Markdown link': '[click me](https://evil.com)',
  'a javascript: link': '[x](javascript:alert(1))',
  'a reference definition and its use': '[x]: http://evil.com\n\nsee [x]',
  'an image': '![p](https://evil.com/pixel.png)',
  'an <img onerror>': '<img src=x onerror=alert(1)>',
  'a raw anchor': '<a href="https://evil.com">x</a>',
  'a script element': '<script>alert(1)</script>',
  'a URL split over a line break': 'https:\n//evil.com/x',
  'a URL inside emphasis': '*https://evil.com*',
  'an entity spelling a bidi override': 'I &#x202E;EERGASID&#x202C; with this',
  'a decimal entity spelling a bidi override': 'I &#8238;EERGASID',
  'an escaped entity that must stay text (&lt;script)': '&lt;script&gt;alert(1)&lt;/script&gt;',
  'a raw right-to-left override and isolates (a topic, a reply)': 'Topic \u202eEERGASID\u202c and \u2067x\u2069 \u061c',
};

function digestOf(text: string): Digest {
  return {
    topic: text,
    consensus: 'MAJORITY',
    consensusStatement: text,
    dissent: text,
    contributors: text,
    confidence: 0.5,
    tokensUsed: 100,
    tokenBudget: 15_000,
    terminatedBy: 'max_rounds',
  };
}

function stateOf(text: string): MeetingState {
  return {
    ...initialState(),
    meetingId: 'm-1',
    topic: text,
    status: 'closed',
    closed: { reason: 'max_rounds' },
    participants: panel(['ada'], false),
    digest: { digest: digestOf(text), text: '' },
  };
}

function minutesOf(text: string): string {
  const [open, ...briefing] = opened();
  const said = roundSaid(1, { ada: 'AGREE' }).map((b) =>
    b.type === 'message_posted' ? { ...b, text: `${text} [STANCE: AGREE]` } : b,
  );
  const bodies: EventBody[] = [
    { ...(open as Extract<EventBody, { type: 'meeting_opened' }>), topic: text },
    ...briefing,
    ...said,
    { type: 'judge_feedback', round: 1, text, corrections: [] } as unknown as EventBody,
    { type: 'meeting_closed', reason: 'max_rounds' },
    { type: 'digest_ready', digest: digestOf(text), text },
  ];
  return renderMinutes(fold(logOf(bodies)));
}

/** Every Markdown surface model text reaches, built from one hostile text. */
const SURFACES: Record<string, (text: string) => string> = {
  minutes: minutesOf,
  'deliberate (MCP answer)': (text) => {
    const s = stateOf(text);
    const r: ConveneResult = { meetingId: 'm-1', state: s, digest: s.digest?.digest, outcome: text, cut: false };
    return (deliberateReport(r, { path: '/w/m.md', written: true }).content[0] as { text: string }).text;
  },
  'review (MCP answer)': (text) => {
    const s = stateOf(text);
    const r: ConveneResult = { meetingId: 'm-1', state: s, digest: s.digest?.digest, outcome: text, cut: false };
    const votes = [{ worker: 'ada', vote: 'accept' as const, confidence: 0.9, rationale: text }];
    const lines = { start: 1, end: 2 };
    const findings = [
      {
        id: 'O1',
        file: text,
        lines,
        severity: 'blocking' as const,
        decision: text,
        claim: text,
        verdict: 'PROVEN' as const,
        votes,
      },
      {
        id: 'O2',
        file: text,
        lines,
        severity: 'note' as const,
        defect: text,
        claim: text,
        refuted: text,
        verdict: 'REFUTED' as const,
        votes: [],
      },
    ];
    const scope = { changed: [], decisions: [], unread: [{ file: text, reason: text }] };
    const answer = reviewReport(r, { exit: 3, why: text, findings, scope }, { path: '/w/m.md', written: true });
    return (answer.content[0] as { text: string }).text;
  },
  'chat digest report (and the lm tool answer)': (text) => digestReport(stateOf(text), { cut: false }),
  'chat round table': (text) =>
    roundTable({ round: 1, posts: [{ speaker: 'ada', model: 'm', stance: 'AGREE', gist: text }], judge: text }),
  'review digest (editable)': (text) => asReviewed.render(digestMarkdown(stateOf(text))),
  'decision record': (text) =>
    decisionRecord({
      state: stateOf(text),
      digestText: digestMarkdown(stateOf(text)),
      minutesLink: '../roundtable/m.md',
      decidedBy: 'me',
    }),
  'builder fields (lm tool confirmation, headings, cells, quotes)': (text) =>
    [inline(text), cell(text), quote(text), paragraph(text)].join('\n\n'),
};

/** The links a surface itself writes (the room's command link, the record's minutes), which model text must not add to. */
const OWN_LINK = /^(command:roundtable\.openMeeting\?|\.\.\/roundtable\/m\.md$)/;
/** A surface's Markdown as a permissive client renders it (HTML already, for the review). */
const rendered = (markdown: string): string => (markdown.startsWith('<') ? markdown : md.render(markdown));

describe('model text in every Markdown surface: no link, no HTML, no decoded bidi control', () => {
  for (const [what, text] of Object.entries(HOSTILE)) {
    it(what, () => {
      for (const [surface, build] of Object.entries(SURFACES)) {
        const html = rendered(build(text));
        const hrefs = [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1] ?? '');
        assert.deepEqual(
          hrefs.filter((h) => !OWN_LINK.test(h)),
          [],
          `${surface}: a link from model text\n${html}`,
        );
        assert.doesNotMatch(
          html,
          /<(script|img|iframe)\b|<[^>]*\sonerror=/i,
          `${surface}: an element from model text\n${html}`,
        );
        assert.doesNotMatch(html, ANY_BIDI, `${surface}: a bidi control decoded from an entity`);
      }
    });
  }

  it('text that typed an entity reads as typed: &lt;script shows as "&lt;script", never as <script', () => {
    for (const [surface, build] of Object.entries(SURFACES)) {
      const html = rendered(build('&lt;script&gt;'));
      assert.match(html, /&amp;lt;script&amp;gt;/, `${surface}\n${html}`);
    }
  });

  it('a URL still reads as the URL: the escapes render as nothing', () => {
    const html = md.render(paragraph('see https://evil.example/a.b?c=d@e and www.x.io'));
    // The zero-width space after `@` (no mention on GitHub) shows as nothing too.
    assert.equal(
      html
        .replace(/<[^>]+>/g, '')
        .replace(/\u200b/g, '')
        .trim(),
      'see https://evil.example/a.b?c=d@e and www.x.io',
    );
  });
});

describe('a bidi control in a topic never reaches a file name', () => {
  it('the minutes file of a topic with U+202E is plain ASCII', () => {
    const base = minutesFileBase({ ...stateOf('Use \u202egpj.exe\u202c now'), openedAt: 0, mode: 'roundtable' });
    assert.match(base, /^[a-z0-9-]+$/);
  });
});

describe("the room's Markdown (webview) lets no entity decode into a bidi control", () => {
  it('&#x202E; and &#8238; show as the visible escape, in text and in a link title', () => {
    const html = markdownHtml('I &#x202E;EERGASID&#8236; and [x](https://ok.example "t&#x202e;")');
    assert.doesNotMatch(html, ANY_BIDI);
    assert.match(html, /⟨U\+202E⟩EERGASID⟨U\+202C⟩/);
  });

  it('a zero-width space spelled as an entity inside a marker is dropped as the character would be', () => {
    assert.match(markdownHtml('[STANCE: AG&#8203;REE]'), /\[STANCE: AGREE\]/);
  });
});

/** Model text naming people, teams and issues, as a reviewer's claim or a vote's rationale might. */
const PINGS: Record<string, string> = {
  'a user': 'Ask @octocat before merging',
  'a team': 'cc @acme/security-team: this weakens the auth check',
  'mentions at line starts, in brackets, after punctuation, in a list': '@octocat\n(@hubot) and,@mona\n- @acme/ops',
  'a mention after a letter (an address) and after an element': 'me@octocat.io and **x**@octocat',
  'issue references: #n, GH-n, user#n, owner/repo#n': 'Fixes #123, GH-45, jlord#26 and octo-org/octo-repo#6',
  'a reference at a line start and after a bracket': '#7 again\n(#8) and [#9]',
};

/** A pull-request comment (`roundtable review --markdown`) whose every field is `text`. */
function prComment(text: string): string {
  const lines = { start: 2, end: 2 };
  const vote = { worker: text, vote: 'accept' as const, confidence: 0.9, rationale: text };
  const found = { id: 'O1', file: text, lines, severity: 'blocking' as const, claim: text, quote: text, votes: [vote] };
  const scope = { changed: [], decisions: [], unread: [{ file: text, reason: text }] };
  return [
    reviewMarkdown(
      {
        exit: 1,
        findings: [
          { ...found, decision: text, proposedBy: [text], verdict: 'PROVEN' },
          { ...found, id: 'O2', defect: text, verdict: 'CONTESTED' },
        ],
        scope,
      },
      { failOn: 'blocking', minutesPath: text },
    ),
    reviewMarkdown({ exit: 3, why: text, findings: [] }, { failOn: text }),
  ].join('\n');
}

/** The Markdown surfaces as GitHub would render them (the editable digest as Markdown, not as the review's HTML). */
const ON_GITHUB: Record<string, (text: string) => string> = {
  ...SURFACES,
  'review digest (editable)': (text) => digestMarkdown(stateOf(text)),
  'pull-request comment and job summary (review --markdown)': prComment,
};

describe('model text on GitHub: no mention, no issue reference', () => {
  it('the check sees what GitHub links: a mention, a team, a reference; none inside code or a link', () => {
    assert.deepEqual(
      githubReferences('@octocat, @acme/security-team and #12, GH-3, o/r#4').map((r) => `${r.kind} ${r.text}`),
      ['user @octocat', 'team @acme/security-team', 'issue #12', 'issue GH-3', 'issue o/r#4'],
    );
    assert.deepEqual(githubReferences('`@octocat #12`\n\n    @octocat\n\n[@octocat #12](https://x.example)'), []);
    // Escapes and entities are decoded before GitHub looks: they would not help.
    assert.equal(githubReferences('\\@octocat &#64;hubot \\#12').length, 3);
  });

  for (const [what, text] of Object.entries(PINGS)) {
    it(what, () => {
      assert.notDeepEqual(githubReferences(text), [], 'the raw text pings no one: the case tests nothing');
      for (const [surface, build] of Object.entries(ON_GITHUB)) {
        const markdown = build(text);
        assert.deepEqual(githubReferences(markdown), [], `${surface}: model text pings\n${markdown}`);
      }
    });
  }

  it('the names and numbers still read as typed: what is added renders as nothing', () => {
    for (const text of Object.values(PINGS)) {
      const shown = new JSDOM(githubHtml(paragraph(text))).window.document.body.textContent ?? '';
      assert.equal(shown.replace(/\u200b/g, '').trim(), text);
    }
  });
});
