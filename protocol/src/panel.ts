/**
 * The panel Roundtable proposes from the models a user already has (VS Code's chat models, an
 * OpenAI-compatible server's `/v1/models`): workers from distinct model families, because a panel
 * of different families is what makes debate better than one model; the judge on a model no
 * worker uses where possible; the assistant (who only opens and closes) on the cheapest one.
 * One definition for the extension's start flow and the CLI's `--provider auto`.
 */
import type { Participant } from './domain';

/** One model a panel can be made of. */
export interface ModelChoice {
  provider: 'openai' | 'vscode-lm';
  /** What goes into `Participant.model` (the server's model id, or the VS Code model's id). */
  id: string;
  /** Family used for diversity ("gpt-4o", "claude-3.5-sonnet", "llama3.1"). */
  family: string;
  /** Where it comes from, shown to the user ("Copilot", "Ollama at 127.0.0.1:11434"). */
  source: string;
  /** Relative cost, lower is cheaper; from `costRank` unless the caller knows better. */
  cost?: number;
}

/** Worker names and personas that fit any topic. */
export const PANEL_WORKERS: readonly { name: string; persona: string }[] = [
  { name: 'ada', persona: 'Pragmatist: effort, cost and what can ship soonest.' },
  { name: 'grace', persona: 'Skeptic: risks, failure modes and what could go wrong.' },
  { name: 'linus', persona: 'Architect: long-term maintainability and fit with the existing system.' },
  { name: 'barbara', persona: 'Operator: running it in production, migration and rollback.' },
  { name: 'edsger', persona: 'User advocate: what the people who use the result will notice.' },
  { name: 'margaret', persona: 'Reviewer: evidence, assumptions and what is still unknown.' },
];
export const PANEL_JUDGE_NAME = 'jude';
export const PANEL_ASSISTANT_NAME = 'sam';
export const DEFAULT_WORKER_COUNT = 3;

/** The family of a model id as servers name them: `llama3.1:8b` → `llama3.1`, `org/Qwen2.5-7B` → `qwen2.5`. */
export function familyOf(id: string): string {
  const base = id.toLowerCase().split('/').pop() ?? id.toLowerCase();
  const noTag = base.split(':')[0] ?? base;
  // Drop size and quantisation suffixes ("-7b", "-instruct", "-q4_k_m", dates).
  return (
    noTag
      .replace(/[-_](\d+(\.\d+)?[bm]|instruct|chat|it|q\d\w*|fp16|gguf|latest|\d{4}-?\d{2}-?\d{2}|preview)\b/g, '')
      .replace(/[-_](\d+(\.\d+)?[bm]|instruct|chat|it)$/g, '') || noTag
  );
}

/**
 * A relative cost from a model's name: small models ("mini", "flash", "haiku", "nano", a
 * parameter count ≤ 8b) are cheap; others cost more. Only used to choose the assistant.
 */
export function costRank(id: string): number {
  const s = id.toLowerCase();
  const size = /(?:^|[^\d.])(\d+(?:\.\d+)?)b\b/.exec(s);
  if (size?.[1]) return Number(size[1]);
  if (/\b(mini|nano|flash|haiku|lite|small|tiny)\b|-(mini|nano|flash|haiku|lite|small|tiny)/.test(s)) return 1;
  return 100;
}

function participant(m: ModelChoice, name: string, role: Participant['role'], persona?: string): Participant {
  return { name, role, provider: m.provider, model: m.id, ...(persona ? { persona } : {}) };
}

/**
 * Proposes a panel of `workers` workers (2..6), a judge and an assistant from `models`, or
 * `undefined` when there is no model. Workers take one model per family first, in the order
 * given, and reuse models only when there are fewer families than seats.
 */
export function proposePanel(
  models: readonly ModelChoice[],
  opts: {
    workers?: number;
    /** The workers' models as the user picked them (in order; one is seated twice): no proposal. */
    workerModels?: readonly ModelChoice[];
  } = {},
): Participant[] | undefined {
  if (models.length === 0) return undefined;
  const seats = Math.max(2, Math.min(PANEL_WORKERS.length, opts.workers ?? DEFAULT_WORKER_COUNT));
  const byFamily = new Map<string, ModelChoice>();
  for (const m of models) if (!byFamily.has(m.family)) byFamily.set(m.family, m);
  const distinct = [...byFamily.values()];
  const workerModels: ModelChoice[] = [];
  const picked = opts.workerModels?.slice(0, PANEL_WORKERS.length) ?? [];
  if (picked.length > 0) {
    workerModels.push(...picked);
    if (picked.length === 1) workerModels.push(picked[0] as ModelChoice);
  }
  for (let i = 0; picked.length === 0 && workerModels.length < seats; i++) {
    const pool = distinct.length >= seats || i < distinct.length ? distinct : models;
    workerModels.push(pool[i % pool.length] as ModelChoice);
  }
  const used = new Set(workerModels.map((m) => `${m.provider}:${m.id}`));
  const cost = (m: ModelChoice) => m.cost ?? costRank(m.id);
  const unused = models.filter((m) => !used.has(`${m.provider}:${m.id}`));
  // The judge reviews every round: the strongest model no worker uses, else the strongest one.
  const judge = [...(unused.length > 0 ? unused : models)].sort((a, b) => cost(b) - cost(a))[0] as ModelChoice;
  const assistant = [...models].sort((a, b) => cost(a) - cost(b))[0] as ModelChoice;
  return [
    participant(assistant, PANEL_ASSISTANT_NAME, 'assistant'),
    participant(judge, PANEL_JUDGE_NAME, 'judge'),
    ...workerModels.map((m, i) => {
      const w = PANEL_WORKERS[i] as { name: string; persona: string };
      return participant(m, w.name, 'worker', w.persona);
    }),
  ];
}
