/**
 * The Meetings view in the sidebar of a real VS Code, as the e2e tests find and read it, and the
 * meetings they put in the daemon's store before VS Code starts.
 */
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { MeetingEvent } from '@roundtable/protocol';
import { SqliteStore } from '../../daemon/src/store/sqliteStore';

/** Writes meetings into the store of the data dir `home`, as the engine would have; returns their ids. */
export async function seedMeetings(home: string, meetings: MeetingEvent[][]): Promise<string[]> {
  const store = await SqliteStore.open(path.join(home, 'store'));
  const ids: string[] = [];
  for (const events of meetings) {
    const id = `m-e2e-${Math.random().toString(36).slice(2, 8)}`;
    ids.push(id);
    for (const { meetingId: _m, seq: _s, at: _a, v: _v, ...body } of events) await store.append(id, body);
  }
  await store.close();
  return ids;
}

export interface MeetingsView {
  /** The view's pane in the sidebar. */
  pane(): Locator;
  /** The view's row for a topic (matched on its first 30 characters, as a narrow row may cut it). */
  row(topic: string): Locator;
  /** Shows every group of the view (VS Code may keep a group collapsed). */
  expandGroups(): Promise<void>;
}

export function meetingsView(page: Page): MeetingsView {
  const pane = (): Locator => page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^\s*Meetings/ }) });
  return {
    pane,
    row: (topic) => pane().locator('.monaco-list-row', { hasText: topic.slice(0, 30) }),
    expandGroups: async () => {
      const collapsed = pane().locator('.monaco-list-row[aria-expanded="false"]');
      while ((await collapsed.count()) > 0) await collapsed.first().click();
    },
  };
}
