/**
 * What happens to a meeting after it starts, for every meeting the daemon holds, on screen or not:
 * it is followed while it runs, its review is offered when it settles, its minutes are written
 * per `roundtable.minutes`, and a failed one offers Retry and Discard instead of Accept. What a
 * meeting needs is read from its log (folded state) and from the files on disk, never from
 * bookkeeping of this window, so a meeting that finished while VS Code was closed is handled too.
 */
import * as vscode from 'vscode';
import type {
  DecisionKind,
  MeetingEvent,
  ResolveAction,
  MeetingState,
  MeetingSummary,
  StartMeetingParams,
} from '@roundtable/protocol';
import { parseScopeInput, settles, decisionRefusal, needOf } from '@roundtable/protocol';
import { renderMinutes } from '@roundtable/protocol/minutes';
import type { MeetingHandle } from '@roundtable/client';
import type { DaemonLink } from './daemonLink';
import { DigestPanel, type ReviewActions } from './digestPanel';
import { writeDecisionRecord } from './decisionRecordFile';
import { stageInGit } from './gitStage';
import { existingMinutes, manifestFile, minutesPolicy, writeMinutesFile } from './minutesFiles';
import { needOfSummary, shortTopic } from './meetingStatus';
import { API_KEY_SECRET } from './startFlow';

export interface LifecycleHost {
  context: vscode.ExtensionContext;
  link: DaemonLink;
  log: vscode.LogOutputChannel;
  /** The meeting the room shows now. */
  shown(): string | undefined;
  /** Shows a meeting in the room (and follows it). */
  select(meetingId: string): Promise<void>;
  /** Something about the meetings changed: the tree, the context keys and the status bar update. */
  changed(): void;
}

export class Lifecycle implements ReviewActions, vscode.Disposable {
  /** Per followed meeting, the last seq that was already in its log when this window began to follow it. */
  private readonly since = new Map<string, number>();
  private readonly disposables: vscode.Disposable[] = [];
  /**
   * Meetings started here that closed before the room showed them, with the settle that came
   * meanwhile: their review opens as the room shows them.
   */
  private readonly closedOffScreen = new Map<string, MeetingEvent | undefined>();

  constructor(private readonly host: LifecycleHost) {
    this.disposables.push(
      // A meeting started here: everything in it is new, so its settling opens the review.
      host.link.onStarted((meetingId) => this.since.set(meetingId, 0)),
      host.link.onEvent((e) => {
        if (STATUS_EVENTS.has(e.type)) host.changed();
        const since = this.since.get(e.meetingId);
        // A settle replayed from the log was there before this window looked: catchUp() saw it.
        // The review of the meeting on screen opens as it closes and shows progress while the digest is written.
        // One started here may close before the room shows it (the start answers with its first events,
        // and a fast panel is done in that time): its review opens when the room does (shownNow).
        if (e.type === 'meeting_closed' && e.reason !== 'error' && since !== undefined && e.seq > since) {
          if (host.shown() === e.meetingId) this.inBackground(this.review(e.meetingId));
          else if (since === 0) this.closedOffScreen.set(e.meetingId, undefined);
        }
        if (settles(e) && since !== undefined && e.seq > since) this.inBackground(this.settled(e));
      }),
    );
  }

  /** The room shows a meeting now: one started here that closed before it was on screen opens its review. */
  shownNow(meetingId: string): void {
    if (!this.closedOffScreen.has(meetingId)) return;
    const settle = this.closedOffScreen.get(meetingId);
    this.closedOffScreen.delete(meetingId);
    this.inBackground(settle ? this.present(settle) : this.review(meetingId));
  }

  /** Work an event handler does not wait for: a failure is logged, never lost. */
  private inBackground(work: Promise<void>): void {
    void work.catch((err: unknown) => this.host.log.error((err as Error).message));
  }

  /** Follows a meeting's log; `fresh` for one started here (everything in it is new). */
  async follow(meetingId: string, opts: { fresh?: boolean } = {}): Promise<void> {
    if (this.since.has(meetingId)) return;
    if (opts.fresh) this.since.set(meetingId, 0);
    const lastSeq = await this.host.link.subscribe(meetingId);
    if (!opts.fresh) this.since.set(meetingId, lastSeq);
  }

  /** A meeting's state holding all of its log there was when asked: followed, and its history arrived. */
  async caughtUp(meetingId: string): Promise<MeetingHandle> {
    await this.follow(meetingId);
    const handle = await this.host.link.handle(meetingId);
    // The daemon sends the history after it answers the subscription: wait for the last event it named.
    await handle.until((s) => s.lastSeq >= handle.since);
    return handle;
  }

  state(meetingId: string): MeetingState {
    return this.host.link.state(meetingId);
  }

  /**
   * After (re)connecting: follows every meeting that is not done, writes the minutes that
   * `always` asks for and are missing, and says once which meetings wait for the human.
   */
  async catchUp(meetings: MeetingSummary[]): Promise<void> {
    const waiting: MeetingSummary[] = [];
    for (const m of meetings) {
      const need = needOfSummary(m);
      if (m.status !== 'closed' || need) await this.follow(m.meetingId);
      if (need && need !== 'failed') waiting.push(m);
      if (minutesPolicy() === 'always' && m.status === 'closed' && m.digestReady && m.terminatedBy !== 'error') {
        await this.saveMinutes(m.meetingId, { onlyIfMissing: true });
      }
    }
    if (waiting.length > 0 && !this.toldWaiting) {
      this.toldWaiting = true;
      const one = waiting.length === 1 ? waiting[0] : undefined;
      const choice = await vscode.window.showInformationMessage(
        one
          ? `Roundtable: “${shortTopic(one.topic)}” waits for your review.`
          : `Roundtable: ${waiting.length} meetings wait for your review.`,
        one ? 'Review' : 'Show Meetings',
      );
      if (choice === 'Review' && one) await this.review(one.meetingId);
      else if (choice) await vscode.commands.executeCommand('roundtable.meetings.focus');
    }
  }
  private toldWaiting = false;

  /** A followed meeting just settled (digest out, escalated, or failed). */
  private async settled(e: MeetingEvent): Promise<void> {
    const id = e.meetingId;
    if (minutesPolicy() === 'always' && needOf(this.state(id)) !== 'failed') await this.saveMinutes(id);
    // Started here and about to be shown: what it needs is shown with the room (shownNow), not as a notification.
    if (this.closedOffScreen.has(id) && this.host.shown() !== id) this.closedOffScreen.set(id, e);
    else await this.present(e);
  }

  /** Shows what a settled meeting needs: its review on screen, a notification otherwise. */
  private async present(e: MeetingEvent): Promise<void> {
    const id = e.meetingId;
    const s = this.state(id);
    const need = needOf(s);
    if (need === 'failed') {
      // A meeting without a decision on screen opens its review, which says why and offers Retry;
      // one that failed outright is said in a notification with Retry and Discard.
      if (s.digest?.digest.noDecision && s.closed?.reason !== 'error' && this.host.shown() === id)
        await this.review(id);
      else await this.offerRetry(id, s);
      return;
    }
    if (!need) return;
    if (e.type === 'escalated' && minutesPolicy() !== 'always' && this.host.shown() === id) {
      // The report (votes, matrix, conflicts) opens beside the review, unsaved: nothing enters the repo.
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: renderMinutes(s) });
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    }
    if (this.host.shown() === id) {
      await this.review(id);
      return;
    }
    const choice = await vscode.window.showInformationMessage(
      `Roundtable: “${shortTopic(s.topic)}” ${need === 'escalation' ? 'needs your decision' : 'is ready for your review'}.`,
      'Review',
    );
    if (choice === 'Review') await this.review(id);
  }

  private async offerRetry(meetingId: string, s: MeetingState): Promise<void> {
    const failed = s.closed?.reason === 'error' || !s.digest?.digest.noDecision;
    const why = failed ? (s.closed?.detail ?? s.digest?.digest.noDecision) : s.digest?.digest.noDecision;
    const detail = why ? `: ${why.split('\n')[0] ?? ''}` : '';
    const choice = await vscode.window.showWarningMessage(
      `Roundtable: “${shortTopic(s.topic)}” ${failed ? 'failed' : 'produced no decision'}${detail}`,
      'Retry',
      'Discard',
    );
    if (choice === 'Retry') await this.retry(meetingId);
    else if (choice === 'Discard') await this.discard(meetingId);
  }

  async review(meetingId: string): Promise<void> {
    await this.follow(meetingId);
    const s = this.state(meetingId);
    // A failed meeting has no digest to show; one without a decision has, with its reason and Retry.
    if (needOf(s) === 'failed' && !s.digest?.digest.noDecision) {
      await this.offerRetry(meetingId, s);
      return;
    }
    DigestPanel.show(this.host.context.extensionUri, this.host.link, meetingId, this, this.host.log);
  }

  /** Renders the minutes from the followed log's state and writes them (one file per meeting, found on disk). */
  async saveMinutes(meetingId: string, opts: { onlyIfMissing?: boolean } = {}): Promise<vscode.Uri | undefined> {
    const meeting = await this.caughtUp(meetingId);
    if (opts.onlyIfMissing && (await existingMinutes(meeting.state))) return undefined;
    const file = await writeMinutesFile(meeting);
    if (file) {
      DigestPanel.filesWritten(meetingId, { minutes: file });
      this.host.log.info(`minutes of ${meetingId} written to ${vscode.workspace.asRelativePath(file)}`);
    }
    return file;
  }

  async decide(
    meetingId: string,
    decision: DecisionKind,
    digestText: string,
    instruction?: string,
    scopeAsked: string[] = [],
  ): Promise<void> {
    // Checked before anything is decided: a scope the record could not hold is said in one line, and nothing changes.
    const scope = parseScopeInput(scopeAsked.join('\n'));
    if (!scope.ok) throw new Error(scope.error);
    await this.follow(meetingId);
    const before = this.state(meetingId);
    const refused = decisionRefusal(before, decision);
    if (refused) throw new Error(refused);
    const from = before.lastSeq;
    const handle = await this.host.link.handle(meetingId);
    await handle.decide({ decision, digestText, ...(instruction ? { instruction } : {}) });
    await handle.untilEvent((e) => e.type === 'decision_recorded', from);
    this.host.changed();
    if (decision === 'another_round') {
      void vscode.window.showInformationMessage('Another round is running; the review opens again when it ends.');
      return;
    }
    const policy = minutesPolicy();
    // Minutes go in on Accept (or always); a Reject leaves the workspace as it was unless `always`.
    const minutes =
      policy === 'always' || (policy === 'onAccept' && decision === 'accepted')
        ? await this.saveMinutes(meetingId)
        : undefined;
    if (decision !== 'accepted') {
      void vscode.window.showInformationMessage(
        `Rejected: ${minutes ? `${vscode.workspace.asRelativePath(minutes)} updated; ` : ''}nothing staged in git.`,
      );
      return;
    }
    const written: vscode.Uri[] = minutes ? [minutes] : [];
    const record = await writeDecisionRecord(this.state(meetingId), digestText, minutes, scope.globs);
    if (record) {
      written.push(record);
      DigestPanel.filesWritten(meetingId, { decision: record });
    }
    const manifest = minutes && this.state(meetingId).mode === 'consensus' ? await manifestFile() : undefined;
    const staged =
      written.length > 0 && (await stageInGit([...written, ...(manifest ? [manifest] : [])], this.host.log));
    for (const f of written)
      await vscode.window.showTextDocument(f, {
        preview: false,
        viewColumn: vscode.ViewColumn.Beside,
        preserveFocus: true,
      });
    void vscode.window.showInformationMessage(
      `Accepted: ${written.map((f) => vscode.workspace.asRelativePath(f)).join(' and ') || 'nothing'} written${staged ? ' and staged in git' : ''}.`,
    );
  }

  async resolve(
    meetingId: string,
    action: ResolveAction,
    opts: { option?: string; instruction?: string },
  ): Promise<void> {
    await (await this.host.link.handle(meetingId)).resolve({ action, ...opts });
    this.host.changed();
  }

  /** The review relayed the person's answer to the daemon: the views catch up. */
  relayed(): void {
    this.host.changed();
  }

  /** Starts the same meeting again (same topic, panel, options and limits) and shows it in its place. */
  async retry(meetingId: string): Promise<string> {
    await this.follow(meetingId);
    const opened = this.host.link.events(meetingId).find((e) => e.type === 'meeting_opened');
    if (opened?.type !== 'meeting_opened') throw new Error('The meeting’s log has no opening: start it again.');
    const apiKey = opened.participants.some((p) => p.provider === 'openai')
      ? await this.host.context.secrets.get(API_KEY_SECRET)
      : undefined;
    const params: StartMeetingParams = {
      topic: opened.topic,
      mode: opened.mode,
      participants: opened.participants,
      config: opened.config,
      ...(opened.options ? { options: opened.options } : {}),
      ...(opened.providers ? { providers: opened.providers } : {}),
      ...(opened.workspace ? { workspace: opened.workspace } : {}),
      ...(apiKey ? { apiKey } : {}),
    };
    const next = await this.host.link.start(params);
    await this.follow(next, { fresh: true });
    await this.host.select(next);
    // The failed attempt is replaced by the retry: it leaves no entry behind.
    await this.host.link.request('meeting/delete', { meetingId }).catch((e: unknown) => {
      this.host.log.warn(`could not remove the failed meeting ${meetingId}: ${(e as Error).message}`);
    });
    this.host.changed();
    return next;
  }

  /** Deletes a failed meeting's log: nothing of it is kept, nothing was written. */
  async discard(meetingId: string): Promise<void> {
    await this.host.link.request('meeting/delete', { meetingId });
    this.since.delete(meetingId);
    await this.host.link.forget(meetingId);
    this.host.changed();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Events after which a meeting's place in the Meetings view may change. */
const STATUS_EVENTS = new Set<MeetingEvent['type']>([
  'meeting_opened',
  'round_started',
  'meeting_closed',
  'digest_ready',
  'escalated',
  'human_resolved',
  'decision_recorded',
]);
