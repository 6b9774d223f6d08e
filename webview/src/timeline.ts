/**
 * The room's message list: posted messages, each round's judge feedback, and the calls being
 * written, as one keyed list (lit `repeat`, key = message id). A call's live entry has the key of
 * the message it turns into, so the same element is updated in place when it is posted; every
 * other element is left alone, so a selection, a scroll position or focus survives each chunk.
 * An entry that did not change is the same object as on the last frame (EntryMemo) and its
 * template is not built again (lit `guard`): an event rebuilds only the entries it touches.
 * Agent text is Markdown rendered by markdown-it with raw HTML off (see markdown.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import { repeat } from 'lit/directives/repeat.js';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { MeetingState, PostedMessage, StanceCell } from '@roundtable/protocol';
import { judgeKey, type LiveEntry } from '@roundtable/protocol';
import { stripStance, type MarkdownCache } from './markdown';
import { thinkingFold } from './thinking';

export interface Entry {
  key: string;
  from: string;
  role: string;
  kind: string;
  label: string;
  /** What is shown (stance marker stripped from contributions). */
  text: string;
  /** What Copy copies: the text as the agent wrote it. */
  raw: string;
  streaming: boolean;
  /** Shown as plain text, not Markdown (a tool call's line). */
  plain?: boolean;
  stance?: StanceCell;
  /** The model's thinking (shown folded, as plain text; never in `text` or `raw`). */
  thinking?: string;
  /** Tokens of that thinking, where the log says. */
  thinkingTokens?: number;
}

const LIVE_LABEL: Record<LiveEntry['purpose'], (round: number) => string> = {
  turn: (r) => `round ${r} · writing…`,
  ballot: (r) => `round ${r} · voting…`,
  proposal: () => 'proposing options…',
  briefing: () => 'opening the meeting…',
  judge: (r) => `judging round ${r}…`,
  summary: (r) => `summarising round ${r}…`,
  digest: () => 'writing the digest…',
};

type Stances = ReadonlyMap<number, MeetingState['rounds'][number]['stances']>;

function fromMessage(stances: Stances, m: PostedMessage): Entry {
  const contribution = m.kind === 'contribution';
  const stance = contribution ? stances.get(m.round)?.[m.from]?.stance : undefined;
  return {
    key: m.messageId,
    from: m.from,
    role: m.role,
    kind: m.kind,
    label: contribution ? `round ${m.round}` : m.kind === 'human' ? 'you' : m.kind,
    text: contribution ? stripStance(m.text) : m.text,
    raw: m.text,
    streaming: false,
    ...(stance ? { stance } : {}),
    ...(m.thinking ? { thinking: m.thinking } : {}),
    ...(m.thinkingTokens !== undefined ? { thinkingTokens: m.thinkingTokens } : {}),
  };
}

type ToolCallLine = NonNullable<MeetingState['toolCalls']>[number];

/** What a tool call asked for, in a few words: the path, the query or the folder. */
function toolAsk(c: Pick<ToolCallLine, 'tool' | 'args'>): string {
  let a: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(c.args);
    if (v && typeof v === 'object' && !Array.isArray(v)) a = v as Record<string, unknown>;
  } catch {
    return c.args.slice(0, 200);
  }
  const str = (k: string): string => (typeof a[k] === 'string' || typeof a[k] === 'number' ? String(a[k]) : '');
  const lines = str('startLine') ? ` lines ${str('startLine')}-${str('endLine') || 'end'}` : '';
  const glob = str('glob') ? ` in ${str('glob')}` : '';
  if (c.tool === 'read_file') return `${str('path')}${lines}`;
  if (c.tool === 'search') return `“${str('query')}”${glob}`;
  if (c.tool === 'list_files') return `${str('path') || '.'}${glob}`;
  return c.args.slice(0, 200);
}

/** A seat's role by name (a name no longer seated speaks as a worker). */
function roleOf(s: MeetingState, name: string): string {
  return s.participants.find((p) => p.name === name)?.role ?? 'worker';
}

function fromToolCall(s: MeetingState, c: ToolCallLine): Entry {
  const text = `${c.tool} ${toolAsk(c)} → ${c.summary}`;
  return {
    key: `tool:${c.seq}`,
    from: c.participant,
    role: roleOf(s, c.participant),
    kind: c.ok ? 'tool' : 'tool-refused',
    label: `read the workspace · round ${c.round}`,
    text,
    raw: text,
    streaming: false,
    plain: true,
  };
}

/**
 * Posted messages with each round's judge feedback after that round's messages, each workspace
 * tool call before the message it came before, then the live calls.
 */
export function timelineOf(s: MeetingState, live: readonly LiveEntry[]): Entry[] {
  const judge = s.participants.find((p) => p.role === 'judge')?.name ?? 'judge';
  const judged = s.rounds.filter((r) => r.judge && (r.judge.text || r.judge.converged));
  const out: Entry[] = [];
  let next = 0;
  const flushJudges = (beforeRound: number): void => {
    while (next < judged.length && (judged[next]?.round ?? 0) < beforeRound) {
      const r = judged[next++];
      if (!r?.judge) continue;
      const text = r.judge.converged ? `**Converged:** ${r.judge.converged}` : r.judge.text;
      out.push({
        key: judgeKey(judge, r.round),
        from: judge,
        role: 'judge',
        kind: 'judge',
        label: `judge · round ${r.round}`,
        text,
        raw: r.judge.converged ? `CONVERGED: ${r.judge.converged}` : r.judge.text,
        streaming: false,
      });
    }
  };
  const tools = s.toolCalls ?? [];
  let nextTool = 0;
  const flushTools = (beforeSeq: number): void => {
    while (nextTool < tools.length && (tools[nextTool]?.seq ?? 0) < beforeSeq) {
      const c = tools[nextTool++];
      if (c) out.push(fromToolCall(s, c));
    }
  };
  const stances: Stances = new Map(s.rounds.map((r) => [r.round, r.stances]));
  for (const m of s.messages) {
    flushJudges(m.round);
    flushTools(m.seq);
    out.push(fromMessage(stances, m));
  }
  flushJudges(Infinity);
  flushTools(Infinity);
  for (const x of live) {
    out.push({
      key: x.key,
      from: x.from,
      role: roleOf(s, x.from),
      kind: x.purpose,
      label: LIVE_LABEL[x.purpose](x.round),
      text: x.text,
      raw: x.text,
      streaming: true,
      ...(x.thinking ? { thinking: x.thinking } : {}),
    });
  }
  return out;
}

/**
 * The entries shown on the last frame, by key: an entry equal field by field to the last one is
 * handed back as that same object, so the list's templates are rebuilt only where something changed.
 */
export class EntryMemo {
  private last = new Map<string, Entry>();

  keep(entries: readonly Entry[]): Entry[] {
    const next = new Map<string, Entry>();
    const out = entries.map((e) => {
      const before = this.last.get(e.key);
      const same = before !== undefined && sameEntry(before, e) ? before : e;
      next.set(e.key, same);
      return same;
    });
    this.last = next;
    return out;
  }
}

function sameEntry(a: Entry, b: Entry): boolean {
  const keys = Object.keys(b) as (keyof Entry)[];
  return keys.length === Object.keys(a).length && keys.every((k) => a[k] === b[k]);
}

export interface TimelineHandlers {
  copy: (text: string) => void;
}

function entryTemplate(e: Entry, md: MarkdownCache, on: TimelineHandlers): TemplateResult {
  return html`<article
    class="message role-${e.role} kind-${e.kind} ${e.streaming ? 'streaming' : ''}"
    data-message-id=${e.key}
    data-testid=${e.kind === 'judge' ? 'judge' : nothing}
    aria-busy=${e.streaming ? 'true' : 'false'}
  >
    <div class="message-head">
      <strong class="from">${e.from}</strong>
      <span class="role">${e.label}</span>
      ${
        e.stance
          ? html`<span class="stance-badge stance stance-${e.stance}" title="Stance: ${e.stance}">${e.stance}</span>`
          : nothing
      }
      ${
        e.streaming
          ? nothing
          : html`<button
              class="copy"
              type="button"
              title="Copy the text"
              aria-label="Copy the message from ${e.from}"
              @click=${() => on.copy(e.raw)}
            >
              Copy
            </button>`
      }
    </div>
    ${thinkingFold(e.thinking, e.thinkingTokens, e.streaming)}
    ${
      e.streaming || e.plain
        ? html`<div class="message-body plain">${e.text}</div>`
        : html`<div class="message-body md">${unsafeHTML(md.html(e.key, e.text))}</div>`
    }
  </article>`;
}

export function timelineTemplate(entries: readonly Entry[], md: MarkdownCache, on: TimelineHandlers): TemplateResult {
  return html`<section class="messages" data-testid="messages" aria-live="polite" aria-label="Messages">
    ${repeat(
      entries,
      (e) => e.key,
      // Built again only when the entry (see EntryMemo) or the copy handler is not the last frame's.
      (e) => guard([e, on.copy], () => entryTemplate(e, md, on)),
    )}
  </section>`;
}
