/**
 * The room's message list on the page: one keyed list of timeline entries (key = message id), as
 * lit `repeat` keeps one, each entry an element kept until its entry changes. A call's live entry
 * has the key of the message it turns into, so the same element is updated in place when it is
 * posted; every other element is left alone, so a selection, a scroll position, an opened fold or
 * focus survives each chunk. Unlike `repeat`, which walks every key on each render, the list takes
 * what the Timeline says moved: it updates the changed entries before the stable mark by index and
 * reconciles the entries after it (new messages, pending feedback, live calls) with repeat's own
 * algorithm, so an event costs what it touches. A Timeline read whole is reconciled whole.
 * Agent text is Markdown rendered by markdown-it with raw HTML off (see markdown.ts).
 */
import { html, noChange, nothing, type TemplateResult } from 'lit';
import { Directive, directive, PartType, type ChildPart, type PartInfo } from 'lit/directive.js';
import { insertPart, removePart, setChildPartValue } from 'lit/directive-helpers.js';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import { timelineWork, type Entry, type Timeline } from './timeline';
import type { MarkdownCache } from './markdown';
import { thinkingFold } from './thinking';

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

/**
 * Puts `next` in place of the parts `old` (showing `shown`), keyed, after every other part of the
 * container: lit's `repeat` algorithm (lit-html/directives/repeat.js, BSD-3-Clause), so the same
 * elements move as they would under `repeat`. `put` sets a part's entry (a no-op when unchanged).
 */
function reconcile(
  container: ChildPart,
  old: (ChildPart | null)[],
  oldKeys: string[],
  next: readonly Entry[],
  put: (part: ChildPart, e: Entry) => ChildPart,
): ChildPart[] {
  timelineWork.visited += old.length + next.length;
  const keys = next.map((e) => e.key);
  const parts: ChildPart[] = [];
  let newMap: Map<string, number> | undefined;
  let oldMap: Map<string, number> | undefined;
  const mapOf = (list: string[], from: number, to: number): Map<string, number> => {
    const m = new Map<string, number>();
    for (let i = from; i <= to; i++) m.set(list[i]!, i);
    return m;
  };
  let oldHead = 0;
  let oldTail = old.length - 1;
  let newHead = 0;
  let newTail = next.length - 1;
  while (oldHead <= oldTail && newHead <= newTail) {
    if (old[oldHead] === null) oldHead++;
    else if (old[oldTail] === null) oldTail--;
    else if (oldKeys[oldHead] === keys[newHead]) {
      parts[newHead] = put(old[oldHead]!, next[newHead]!);
      oldHead++;
      newHead++;
    } else if (oldKeys[oldTail] === keys[newTail]) {
      parts[newTail] = put(old[oldTail]!, next[newTail]!);
      oldTail--;
      newTail--;
    } else if (oldKeys[oldHead] === keys[newTail]) {
      parts[newTail] = put(old[oldHead]!, next[newTail]!);
      insertPart(container, parts[newTail + 1], old[oldHead]!);
      oldHead++;
      newTail--;
    } else if (oldKeys[oldTail] === keys[newHead]) {
      parts[newHead] = put(old[oldTail]!, next[newHead]!);
      insertPart(container, old[oldHead]!, old[oldTail]!);
      oldTail--;
      newHead++;
    } else {
      newMap ??= mapOf(keys, newHead, newTail);
      oldMap ??= mapOf(oldKeys, oldHead, oldTail);
      if (!newMap.has(oldKeys[oldHead]!)) removePart(old[oldHead++]!);
      else if (!newMap.has(oldKeys[oldTail]!)) removePart(old[oldTail--]!);
      else {
        const at = oldMap.get(keys[newHead]!);
        const part = at !== undefined ? old[at] : null;
        if (!part) parts[newHead] = put(insertPart(container, old[oldHead]!), next[newHead]!);
        else {
          parts[newHead] = put(part, next[newHead]!);
          insertPart(container, old[oldHead]!, part);
          old[at!] = null;
        }
        newHead++;
      }
    }
  }
  while (newHead <= newTail) {
    const part = insertPart(container, parts[newTail + 1]);
    parts[newHead] = put(part, next[newHead]!);
    newHead++;
  }
  while (oldHead <= oldTail) {
    const part = old[oldHead++];
    if (part) removePart(part);
  }
  return parts;
}

/** One keyed list per `<section class="messages">`: its parts in order, their keys, and what each shows. */
class TimelineList extends Directive {
  private parts: ChildPart[] = [];
  private keys: string[] = [];
  private shown = new WeakMap<ChildPart, Entry>();
  private version = -1;
  private copy: TimelineHandlers['copy'] | undefined;

  constructor(info: PartInfo) {
    super(info);
    if (info.type !== PartType.CHILD) throw new Error('timelineList() goes in a text expression');
  }

  render(_t: Timeline, _md: MarkdownCache, _on: TimelineHandlers): unknown {
    return noChange;
  }

  override update(container: ChildPart, [t, md, on]: [Timeline, MarkdownCache, TimelineHandlers]): unknown {
    // A new copy handler builds every entry again (each entry's Copy calls the handler it was built with).
    const whole = t.reset || t.version !== this.version + 1 || on.copy !== this.copy;
    const force = on.copy !== this.copy;
    this.version = t.version;
    this.copy = on.copy;
    const put = (part: ChildPart, e: Entry): ChildPart => {
      if (!force && this.shown.get(part) === e) return part;
      this.shown.set(part, e);
      return setChildPartValue(part, entryTemplate(e, md, on));
    };
    const from = whole ? 0 : t.stable;
    if (!whole)
      for (const i of t.dirty) {
        timelineWork.visited++;
        const part = this.parts[i];
        const e = t.at(i);
        if (part && e) put(part, e);
      }
    const next: Entry[] = [];
    for (let i = from; i < t.length; i++) next.push(t.at(i)!);
    const parts = reconcile(container, this.parts.slice(from), this.keys.slice(from), next, put);
    this.parts.length = from;
    this.keys.length = from;
    for (let i = 0; i < parts.length; i++) {
      this.parts.push(parts[i]!);
      this.keys.push(next[i]!.key);
    }
    return noChange;
  }
}

const timelineList = directive(TimelineList);

export function timelineTemplate(t: Timeline, md: MarkdownCache, on: TimelineHandlers): TemplateResult {
  return html`<section class="messages" data-testid="messages" aria-live="polite" aria-label="Messages">
    ${timelineList(t, md, on)}
  </section>`;
}
