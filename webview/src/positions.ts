/**
 * Where the panel stands, in the room: the stance table by round (with changes of position
 * marked), "was the debate worth it", and a consensus vote's options and ballots.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { DebateMetrics, MeetingState, StanceCell } from '@roundtable/protocol';
import { debateMetrics, flipText, formatCount, shownVotesOn, stanceMatrix } from '@roundtable/protocol';

const n = formatCount;

export function stanceTable(s: MeetingState): TemplateResult | typeof nothing {
  const m = stanceMatrix(s);
  if (m.rounds.length === 0 || s.mode !== 'roundtable') return nothing;
  // By worker and round: each cell looks its change of position up, not through every change.
  const flips = new Map(debateOf(s).flips.map((f) => [`${f.worker}\n${f.round}`, f]));
  return html`<div class="table-scroll" role="region" tabindex="0" aria-label="Stances by round">
    <table class="stances" data-testid="stances">
      <thead>
        <tr>
          <th>Agent</th>
          ${m.rounds.map((r) => html`<th>R${r}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${m.workers.map(
          (w) =>
            html`<tr>
              <th>${w}</th>
              ${m.rounds.map((r) => {
                const c: StanceCell | '' = m.cells[w]?.[r] ?? '';
                const flip = flips.get(`${w}\n${r}`);
                if (!flip) return html`<td class="stance stance-${c || 'none'}" title=${c}>${c || '·'}</td>`;
                return html`<td
                  class="stance stance-${c} flipped${flip.possibleConformity ? ' conformity' : ''}"
                  title=${flipText(flip)}
                >
                  <span class="flip-mark" aria-hidden="true">↺</span>${c}<span class="visually-hidden">
                    (changed from ${flip.from})</span
                  >
                </td>`;
              })}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** A streamed chunk re-renders the same state: the debate's figures are worked out once per event. */
const debates = new WeakMap<MeetingState, DebateMetrics>();
function debateOf(s: MeetingState): DebateMetrics {
  let d = debates.get(s);
  if (!d) debates.set(s, (d = debateMetrics(s)));
  return d;
}

/**
 * Was the debate worth it, as the room goes: what a plain majority of round 1 said against where
 * the panel stands now, who changed position after what, and what the later rounds cost. Shown from
 * round 2 on (round 1 is independent: nobody has heard anyone yet).
 */
export function debateSection(s: MeetingState): TemplateResult | typeof nothing {
  const m = debateOf(s);
  if (m.rounds < 2) return nothing;
  const flips = m.flips;
  const closed = s.status === 'closed';
  return html`<section class="debate" data-testid="debate">
    <p>
      <strong>Debate ${closed ? 'changed' : 'has changed'} the outcome: ${m.changedOutcome ? 'yes' : 'no'}</strong>
      — round 1: ${m.round1Majority} · ${closed ? 'final' : 'now'}: ${m.finalOutcome} · rounds after the first cost
      ${n(m.laterRoundsBilledTokens)} billed tokens
    </p>
    ${
      flips.length
        ? html`<ul class="flips" aria-label="Changed position">
            ${flips.map(
              (f) =>
                html`<li class=${f.possibleConformity ? 'conformity' : ''}>
                  ${flipText({ ...f, possibleConformity: false })}${
                    f.possibleConformity
                      ? html` <span class="flag" title="moved toward the majority after no new argument"
                          >possible conformity</span
                        >`
                      : nothing
                  }
                </li>`,
            )}
          </ul>`
        : html`<p class="quiet">Nobody has changed position.</p>`
    }
  </section>`;
}

export function ballots(s: MeetingState): TemplateResult | typeof nothing {
  if (s.mode !== 'consensus' || s.options.length === 0) return nothing;
  const last = [...s.rounds].reverse().find((r) => Object.keys(r.ballots).length > 0);
  const rows = Object.entries(last?.ballots ?? {});
  const voteOfs = s.options.map((o) => shownVotesOn(s, o.id));
  const v = last?.verdict;
  return html`<section class="consensus" data-testid="ballots">
    <h3>Options and votes${last ? ` (round ${last.round})` : ''}</h3>
    <ul class="options">
      ${s.options.map(
        (o) =>
          html`<li>
            <strong>${o.id}</strong> ${o.label}${
              // A review's finding refuted before the vote says why (its lines are not in the change…).
              o.finding?.refuted
                ? html` <span class="quiet">— refuted before the vote: ${o.finding.refuted}</span>`
                : nothing
            }
          </li>`,
      )}
    </ul>
    ${
      rows.length === 0
        ? nothing
        : html`<div class="table-scroll" role="region" tabindex="0" aria-label="Votes">
            <table class="matrix">
              <thead>
                <tr>
                  <th>Worker</th>
                  ${s.options.map((o) => html`<th>${o.id}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  ([w, b]) =>
                    html`<tr class=${b.valid ? '' : 'invalid'}>
                      <th>${b.valid ? w : `${w} (invalid)`}</th>
                      ${voteOfs.map((voteOf) => {
                        // A review's finding: the votes of the last round that voted on it; a
                        // reviewer's own finding is its accept, not a vote it was asked for.
                        const vote = voteOf(w, b);
                        return html`<td
                          class="vote vote-${vote?.vote ?? 'none'}"
                          title=${vote?.proposed ? 'its own finding: counted as its accept' : ''}
                        >
                          ${vote ? (vote.proposed ? 'proposed' : `${vote.vote} ${vote.confidence.toFixed(2)}`) : '—'}
                        </td>`;
                      })}
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${
      v
        ? html`<p class="verdict" data-testid="verdict">
            ${v.results.map((r) => `${r.option}: ${r.verdict}`).join(' · ')} — agreement
            ${Math.round(v.actualConsensus * 100)}% of
            ${Math.round(v.consensusThreshold * 100)}%${v.decision ? ` — decision ${v.decision}` : ''}
          </p>`
        : nothing
    }
    ${
      s.escalation
        ? html`<p class="escalation" data-testid="escalation">
            Needs your decision: ${s.escalation.reasons.join('; ')}
          </p>`
        : nothing
    }
  </section>`;
}
