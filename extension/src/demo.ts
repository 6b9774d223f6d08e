/**
 * The scripted demo, offered only when no chat model at all is available. Its replies are canned
 * and about one fixed topic, so it runs on that topic and says so. The one place the extension
 * takes the demo's topic from (the protocol owns it: the daemon's script answers it).
 */
import type { Participant } from '@roundtable/protocol';

/** What the user is told before a demo starts. */
export const DEMO_NOTICE = 'Demo: canned replies about a fixed topic, not an answer to your question';

/** The demo panel: the scripted provider, with the personas the demo script was written for. */
export const DEMO_PANEL: readonly Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
  { name: 'jude', role: 'judge', provider: 'scripted', model: 'scripted' },
  {
    name: 'ada',
    role: 'worker',
    provider: 'scripted',
    model: 'scripted',
    persona: 'Platform engineer: build speed and tooling.',
  },
  {
    name: 'grace',
    role: 'worker',
    provider: 'scripted',
    model: 'scripted',
    persona: 'Team lead: ownership and release independence.',
  },
  {
    name: 'linus',
    role: 'worker',
    provider: 'scripted',
    model: 'scripted',
    persona: 'Security engineer: access control and blast radius.',
  },
];
