/**
 * Deterministic provider for demos, tests and benchmarks: replies come from a JSON script.
 *
 * Script format (documented in docs/cli.md, "Scripted provider"):
 * {
 *   "defaultDelayMs": 0,                 // optional delay before every reply
 *   "onExhausted": "pass",               // worker out of replies: "pass" (default), "repeat" or "error"
 *   "replies": {
 *     "ada":   ["text of ada's 1st turn", { "text": "2nd turn", "delayMs": 300 }],
 *     "judge": ["", "CONVERGED: everyone agrees"],
 *     "sam":   { "briefing": ["..."], "summary": ["..."], "digest": ["..."] }
 *   },
 *   "topic": "the question these replies were written for",   // optional; see `ignoresTopic`
 *   "proposals": {...}, "ballots": {...}   // optional consensus replies, see scriptedConsensus.ts
 * }
 * A participant's replies are either one list (used in order, whatever the call's purpose) or an
 * object keyed by purpose (briefing, turn, judge, summary, digest). Without a scripted reply the
 * assistant falls back to a deterministic extractive briefing/summary/digest and the judge stays
 * silent, so a script only needs the workers' lines.
 */
import { readFileSync } from 'node:fs';
import type { CallPurpose, MeetingState, Participant } from '@roundtable/protocol';
import { isRecord } from '@roundtable/protocol';
import { countPromptTokens, countTokens, truncateToTokens } from './tokens';
import { ProviderError, type ChatProvider, type ChatRequest, type ChatResult } from './types';
import { consensusReply, parseConsensusSections, type ConsensusScript } from './scriptedConsensus';

export interface ScriptedReply {
  text: string;
  delayMs?: number;
}

export interface Script extends ConsensusScript {
  /** The question the replies were written for: a meeting on any other topic gets canned replies. */
  topic?: string;
  defaultDelayMs?: number;
  /**
   * How usage is reported: `tokenizer` (default) counts with the real tokenizer; `approximate`
   * uses characters / 4, for load tests where the tokenizer's CPU would stand in for a model's.
   */
  usage?: 'tokenizer' | 'approximate';
  onExhausted?: 'pass' | 'repeat' | 'error';
  replies: Record<string, ScriptedReply[] | Partial<Record<CallPurpose, ScriptedReply[]>>>;
}

/** Said wherever canned replies meet another topic: the CLI, the minutes, the digest. */
export const CANNED_NOTE = 'Scripted demo: canned replies that ignore the topic';

const PURPOSES: readonly CallPurpose[] = ['briefing', 'turn', 'judge', 'summary', 'digest', 'followup'];

function checkReplies(v: unknown, where: string): ScriptedReply[] {
  if (!Array.isArray(v)) throw new Error(`${where} must be a list of replies`);
  return v.map((r, i) => {
    if (typeof r === 'string') return { text: r };
    if (isRecord(r) && typeof r.text === 'string') {
      if (r.delayMs !== undefined && (typeof r.delayMs !== 'number' || r.delayMs < 0)) {
        throw new Error(`${where}[${i}].delayMs must be a non-negative number`);
      }
      return r.delayMs === undefined ? { text: r.text } : { text: r.text, delayMs: r.delayMs };
    }
    throw new Error(`${where}[${i}] must be a string or {"text": "...", "delayMs": N}`);
  });
}

/** Validates a parsed script, with a message that names the offending entry. */
export function parseScript(v: unknown): Script {
  if (!isRecord(v) || !isRecord(v.replies)) throw new Error('a script must be an object with a "replies" object');
  const script: Script = { replies: {}, ...parseConsensusSections(v) };
  if (v.topic !== undefined) {
    if (typeof v.topic !== 'string' || !v.topic.trim()) throw new Error('topic must be a non-empty text');
    script.topic = v.topic;
  }
  if (v.defaultDelayMs !== undefined) {
    if (typeof v.defaultDelayMs !== 'number' || v.defaultDelayMs < 0) {
      throw new Error('defaultDelayMs must be a non-negative number');
    }
    script.defaultDelayMs = v.defaultDelayMs;
  }
  if (v.usage !== undefined) {
    if (v.usage !== 'tokenizer' && v.usage !== 'approximate') throw new Error('usage must be tokenizer or approximate');
    script.usage = v.usage;
  }
  if (v.onExhausted !== undefined) {
    if (v.onExhausted !== 'pass' && v.onExhausted !== 'repeat' && v.onExhausted !== 'error') {
      throw new Error('onExhausted must be pass, repeat or error');
    }
    script.onExhausted = v.onExhausted;
  }
  for (const [name, entry] of Object.entries(v.replies)) {
    if (Array.isArray(entry)) {
      script.replies[name] = checkReplies(entry, `replies.${name}`);
    } else if (isRecord(entry)) {
      const byPurpose: Partial<Record<CallPurpose, ScriptedReply[]>> = {};
      for (const [purpose, list] of Object.entries(entry)) {
        if (!(PURPOSES as readonly string[]).includes(purpose)) {
          throw new Error(`replies.${name}.${purpose}: purpose must be one of ${PURPOSES.join(', ')}`);
        }
        byPurpose[purpose as CallPurpose] = checkReplies(list, `replies.${name}.${purpose}`);
      }
      script.replies[name] = byPurpose;
    } else {
      throw new Error(`replies.${name} must be a list or an object keyed by purpose`);
    }
  }
  return script;
}

export function loadScript(file: string): Script {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read script ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new Error(`script ${file} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  try {
    return parseScript(json);
  } catch (e) {
    throw new Error(`script ${file}: ${(e as Error).message}`, { cause: e });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return signal.aborted ? Promise.reject(abortError()) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(abortError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError(): ProviderError {
  return new ProviderError('the call was aborted', 'aborted');
}

/** First sentence (or first 30 words) of a text, for extractive fallbacks. */
function gist(text: string): string {
  const clean = text
    .replace(/\[STANCE:[^\]]*\]/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
  const sentence = /^(.{20,}?[.!?])(\s|$)/.exec(clean)?.[1] ?? clean;
  const words = sentence.split(' ');
  return words.length > 30 ? `${words.slice(0, 30).join(' ')}…` : sentence;
}

/** Pulls inter-session envelopes out of a prompt, in order, with their bodies unquoted. */
function roomMessages(prompt: string): { from: string; kind: string; body: string }[] {
  const out: { from: string; kind: string; body: string }[] = [];
  const re = /^\[Inter-session message · from=([^ ·\]]+) · kind=(peer|system)[^\]\n]*\]\n((?:\| .*(?:\n|$))*)/gm;
  for (const m of prompt.matchAll(re)) {
    const body = (m[3] ?? '')
      .split('\n')
      .map((l) => l.replace(/^\| /, ''))
      .join('\n')
      .trimEnd();
    out.push({ from: m[1] ?? '?', kind: m[2] ?? 'peer', body });
  }
  return out;
}

/** Deterministic stand-ins for the assistant's and judge's calls when the script has none. */
function fallback(req: ChatRequest): string {
  const prompt = req.messages.map((m) => m.content).join('\n');
  switch (req.meta.purpose) {
    case 'followup':
      // A canned reply has no position to restate: the stance stays as the script wrote it.
      return '';
    case 'briefing':
      return `Welcome. Today's topic: ${req.meta.topic}. Each worker states a position with evidence and ends with a stance marker; the judge keeps us on track.`;
    case 'summary': {
      // A rolling summary of positions: one line per speaker, replaced when they speak again, so
      // it stays the same size however long the meeting runs (what a good summariser does).
      const envelopes = roomMessages(prompt);
      const previous = envelopes.find((m) => m.kind === 'system')?.body ?? '';
      const positions = new Map<string, string>();
      for (const line of previous.split('\n')) {
        const m = /^- ([^:]+): (.*)$/.exec(line);
        if (m?.[1] && m[2]) positions.set(m[1], m[2]);
      }
      for (const m of envelopes) if (m.kind === 'peer') positions.set(m.from, gist(m.body));
      const text = [`Positions after round ${req.meta.round}:`, ...[...positions].map(([n, g]) => `- ${n}: ${g}`)].join(
        '\n',
      );
      return keepTail(text, req.maxTokens);
    }
    case 'digest': {
      const msgs = roomMessages(prompt).filter((m) => m.kind === 'peer');
      // The digest is shown the whole transcript: each speaker is named once, by their latest post.
      const latest = new Map<string, string>();
      for (const m of msgs) latest.set(m.from, gist(m.body));
      const contributors = [...latest].map(([from, g]) => `${from}: ${g}`).join('; ');
      return [
        `CONSENSUS_STATEMENT: ${msgs.length > 0 ? gist(msgs[msgs.length - 1]?.body ?? '') : 'No position was reached.'}`,
        `CONTRIBUTORS: ${contributors || 'nobody spoke'}`,
      ].join('\n');
    }
    case 'judge':
      return '[CLEAN]';
    case 'turn':
      return '[PASS] I have nothing to add.';
  }
}

function keepTail(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  // The longest tail of whole lines that fits, each line counted once (dropping a line and
  // counting the rest again was quadratic in the number of lines), then cut to be sure.
  const lines = text.split('\n');
  let start = lines.length - 1;
  let n = countTokens(lines[start] ?? '');
  while (start > 0) {
    const t = countTokens(lines[start - 1] ?? '') + 1;
    if (n + t > maxTokens) break;
    n += t;
    start--;
  }
  return truncateToTokens(lines.slice(start).join('\n'), maxTokens);
}

export class ScriptedProvider implements ChatProvider {
  readonly id = 'scripted';
  private readonly cursors = new Map<string, number>();

  constructor(private readonly script: Script) {}

  async chat(req: ChatRequest): Promise<ChatResult> {
    const reply = this.next(req);
    await sleep(reply.delayMs ?? this.script.defaultDelayMs ?? 0, req.signal);
    // Stream in word-sized pieces so live views see the message being written.
    if (req.onDelta) for (const piece of reply.text.match(/\S+\s*|\s+/g) ?? []) req.onDelta(piece, 'reply');
    const approximate = this.script.usage === 'approximate';
    return {
      text: reply.text,
      usage: {
        promptTokens: approximate
          ? Math.ceil(req.messages.reduce((n, m) => n + m.content.length, 0) / 4)
          : countPromptTokens(req.messages),
        completionTokens: approximate ? Math.ceil(reply.text.length / 4) : countTokens(reply.text),
        source: 'estimate',
      },
    };
  }

  private next(req: ChatRequest): ScriptedReply {
    const { participant, purpose } = req.meta;
    // Proposals and ballots come from their own sections, so one script serves both modes.
    const voted = consensusReply(this.script, req);
    if (voted !== undefined) return { text: voted };
    // On another topic, the assistant's canned briefing and digest would read as an answer to it:
    // the topic-aware fallbacks speak instead, and the digest says the replies are canned.
    const topic = this.script.topic?.trim();
    if (topic && topic !== req.meta.topic.trim() && purpose !== 'turn' && purpose !== 'judge') {
      const text = fallback(req);
      return {
        text:
          purpose === 'digest'
            ? text.replace(/^CONSENSUS_STATEMENT: .*$/m, `CONSENSUS_STATEMENT: ${CANNED_NOTE}.`)
            : text,
      };
    }
    const entry = this.script.replies[participant];
    let list: ScriptedReply[] | undefined;
    let key = participant;
    if (Array.isArray(entry)) list = entry;
    else if (entry) {
      list = entry[purpose];
      key = `${participant}/${purpose}`;
    }
    const i = this.cursors.get(key) ?? 0;
    if (list && i < list.length) {
      this.cursors.set(key, i + 1);
      return list[i] as ScriptedReply;
    }
    if (list && list.length > 0 && purpose === 'turn') {
      const mode = this.script.onExhausted ?? 'pass';
      if (mode === 'repeat') return list[list.length - 1] as ScriptedReply;
      if (mode === 'error') throw new ProviderError(`script has no reply ${i + 1} for ${participant}`, 'bad_request');
    }
    return { text: fallback(req) };
  }

  /** Moves the participant's cursors past the calls the log of a resumed meeting already holds. */
  resumeFrom(p: Participant, s: MeetingState): void {
    for (const [purpose, n] of completedCalls(p, s)) if (n > 0) this.skip(p.name, purpose, n);
  }

  /**
   * Moves each participant's cursor past replies already recorded in a meeting's log, so a
   * resumed meeting continues the script where it stopped instead of starting it over.
   */
  private skip(participant: string, purpose: CallPurpose, count: number): void {
    const entry = this.script.replies[participant];
    const key = Array.isArray(entry) || !entry ? participant : `${participant}/${purpose}`;
    this.cursors.set(key, (this.cursors.get(key) ?? 0) + count);
  }
}

/** Completed calls of a participant per purpose, read from the log (what a resume must not redo). */
function completedCalls(p: Participant, s: MeetingState): [CallPurpose, number][] {
  if (p.role === 'judge') return [['judge', s.rounds.filter((r) => r.judge).length]];
  if (p.role !== 'worker')
    return [
      ['briefing', s.briefing ? 1 : 0],
      ['summary', s.rounds.filter((r) => r.summary !== undefined).length],
      ['digest', s.digest ? 1 : 0],
    ];
  if (s.mode !== 'consensus')
    return [['turn', s.rounds.filter((r) => r.contributions[p.name] || r.failures[p.name]).length]];
  const ballots = s.rounds.reduce((n, r) => n + (r.ballots[p.name] ? (r.ballots[p.name]?.retried ? 2 : 1) : 0), 0);
  return [['turn', (s.proposals[p.name] ? 1 : 0) + ballots]];
}
