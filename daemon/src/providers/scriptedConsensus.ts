/**
 * The scripted provider's consensus replies: a script's `proposals` and `ballots` sections, turned
 * into the JSON the engine asks for. A ballot template names the option it accepts by position
 * (1 = the first option of the meeting), so the same script votes validly on any options the
 * user gives: the ids come from the ballot prompt itself, never from the script.
 *
 *   "proposals": { "ada": ["Option one", "Option two"] },
 *   "ballots": { "ada": [{ "accept": 1, "confidence": 0.9, "rationale": "… {option} …",
 *                          "against": "… {option} …", "evidence": [{ "file": "demo-evidence.md" }] }] }
 *
 * The n-th template is used in voting round n (the last one again in later rounds).
 */
import { isRecord } from '@roundtable/protocol';
import type { ChatRequest } from './types';

export interface BallotTemplate {
  /** 1-based position of the option this worker accepts (the last option when there are fewer). */
  accept: number;
  confidence: number;
  /** Why it accepts; `{option}` is replaced by the accepted option's label. */
  rationale: string;
  /** Why it rejects each other option; `{option}` is that option's label. */
  against?: string;
  /** Required by the engine when confidence is below 0.5; optional otherwise. */
  uncertainty?: string;
  assumptions?: string[];
  evidence?: { file: string; section?: string; type?: string }[];
}

export interface ConsensusScript {
  proposals?: Record<string, string[]>;
  ballots?: Record<string, BallotTemplate[]>;
}

function stringList(v: unknown, where: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new Error(`${where} must be a list of strings`);
  return v;
}

function checkTemplate(v: unknown, where: string): BallotTemplate {
  if (!isRecord(v)) throw new Error(`${where} must be an object`);
  if (typeof v.accept !== 'number' || !Number.isInteger(v.accept) || v.accept < 1)
    throw new Error(`${where}.accept must be the position of an option, from 1`);
  if (typeof v.confidence !== 'number' || v.confidence < 0 || v.confidence > 1)
    throw new Error(`${where}.confidence must be a number from 0 to 1`);
  if (typeof v.rationale !== 'string' || !v.rationale.trim()) throw new Error(`${where}.rationale must be a text`);
  const t: BallotTemplate = { accept: v.accept, confidence: v.confidence, rationale: v.rationale };
  for (const key of ['against', 'uncertainty'] as const) {
    const x = v[key];
    if (x === undefined) continue;
    if (typeof x !== 'string') throw new Error(`${where}.${key} must be a text`);
    t[key] = x;
  }
  if (v.assumptions !== undefined) t.assumptions = stringList(v.assumptions, `${where}.assumptions`);
  if (v.evidence !== undefined) {
    if (!Array.isArray(v.evidence)) throw new Error(`${where}.evidence must be a list`);
    t.evidence = v.evidence.map((e, i) => {
      if (!isRecord(e) || typeof e.file !== 'string') throw new Error(`${where}.evidence[${i}] needs a "file"`);
      return {
        file: e.file,
        ...(typeof e.section === 'string' ? { section: e.section } : {}),
        ...(typeof e.type === 'string' ? { type: e.type } : {}),
      };
    });
  }
  return t;
}

/** Validates a script's optional `proposals` and `ballots` sections, naming the offending entry. */
export function parseConsensusSections(v: Record<string, unknown>): ConsensusScript {
  const out: ConsensusScript = {};
  if (v.proposals !== undefined) {
    if (!isRecord(v.proposals)) throw new Error('proposals must be an object keyed by worker');
    out.proposals = Object.fromEntries(
      Object.entries(v.proposals).map(([w, list]) => [w, stringList(list, `proposals.${w}`)]),
    );
  }
  if (v.ballots !== undefined) {
    if (!isRecord(v.ballots)) throw new Error('ballots must be an object keyed by worker');
    out.ballots = Object.fromEntries(
      Object.entries(v.ballots).map(([w, list]) => {
        if (!Array.isArray(list) || list.length === 0) throw new Error(`ballots.${w} must be a non-empty list`);
        return [w, list.map((t, i) => checkTemplate(t, `ballots.${w}[${i}]`))];
      }),
    );
  }
  return out;
}

export type ConsensusCall =
  { kind: 'ballot'; options: { id: string; label: string }[] } | { kind: 'proposal'; max: number };

/**
 * What a JSON call of consensus mode asks for, read from its prompt: the ballot prompt lists the
 * options (ids and labels) under "Options (vote with their ids):" in a quoted envelope; the
 * proposal prompt asks to "Propose up to N" options.
 */
export function consensusCallOf(req: ChatRequest): ConsensusCall | undefined {
  if (!req.json || req.meta.purpose !== 'turn') return undefined;
  const prompt = req.messages.map((m) => m.content).join('\n');
  const block = /Options \(vote with their ids\):\n\[Inter-session message[^\n]*\]\n((?:\| .*(?:\n|$))*)/.exec(prompt);
  if (block?.[1]) {
    const options = block[1]
      .split('\n')
      .map((l) => /^\| (O\d+): (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ id: m[1] as string, label: (m[2] as string).trim() }));
    if (options.length > 0) return { kind: 'ballot', options };
  }
  const propose = /Propose up to (\d+) distinct/.exec(prompt);
  if (propose) return { kind: 'proposal', max: Number(propose[1]) };
  return undefined;
}

/** A ballot as JSON text, from a template, on the options of this meeting. */
export function ballotReply(t: BallotTemplate, options: { id: string; label: string }[]): string {
  const chosen = options[Math.min(t.accept, options.length) - 1];
  const fill = (text: string, label: string) => text.replaceAll('{option}', label);
  const votes = options.map((o) => {
    const accept = o === chosen;
    return {
      option: o.id,
      vote: accept ? 'accept' : 'reject',
      confidence: t.confidence,
      rationale: fill(accept ? t.rationale : (t.against ?? `I prefer ${chosen?.label ?? 'another option'}.`), o.label),
      evidence: t.evidence ?? [],
      ...(t.assumptions ? { assumptions: t.assumptions } : {}),
      ...(t.uncertainty ? { uncertainty: t.uncertainty } : {}),
    };
  });
  return JSON.stringify({ votes });
}

/** The scripted consensus reply for this call, or undefined when the script has none for it. */
export function consensusReply(script: ConsensusScript, req: ChatRequest): string | undefined {
  const call = consensusCallOf(req);
  if (!call) return undefined;
  const who = req.meta.participant;
  if (call.kind === 'proposal') {
    const list = script.proposals?.[who];
    return list ? JSON.stringify({ options: list.slice(0, call.max) }) : undefined;
  }
  const templates = script.ballots?.[who];
  if (!templates || templates.length === 0) return undefined;
  const t = templates[Math.min(Math.max(req.meta.round, 1), templates.length) - 1] as BallotTemplate;
  return ballotReply(t, call.options);
}
