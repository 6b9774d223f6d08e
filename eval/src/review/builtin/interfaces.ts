/** Built-in cases on the public API's versions, configuration and feature flags. */
import type { ReviewCase } from '../cases';
import { COMMON, code, defineCase } from './define';

const USERS_V1 = code(
  "import { Router } from 'express';",
  "import { usersRepo } from '../../db/users';",
  '',
  'export const router = Router();',
  '',
  "router.get('/v1/users/:id', async (req, res) => {",
  '  const u = await usersRepo.find(req.params.id);',
  '  if (!u) return res.status(404).end();',
  '  res.json({',
  '    id: u.id,',
  '    name: u.name,',
  '    email: u.email,',
  '  });',
  '});',
);

const STRIPE = code(
  "import Stripe from 'stripe';",
  "import { config } from '../config';",
  '',
  'const stripe = new Stripe(config.STRIPE_SECRET_KEY);',
  '',
  'export async function charge(amountCents: number, currency: string, customer: string) {',
  '  return stripe.paymentIntents.create({ amount: amountCents, currency, customer, confirm: true });',
  '}',
);

const BANNER = code(
  "import type { Request, Response } from 'express';",
  '',
  'export function banner(req: Request, res: Response): void {',
  "  res.json({ text: 'Free shipping over 50 €' });",
  '}',
);

export const INTERFACE_CASES: ReviewCase[] = [
  defineCase({
    id: 'api-rename-field',
    title: 'The v1 user response renames email',
    note: 'A breaking change inside v1.',
    records: ['api'],
    base: { 'src/http/v1/users.ts': USERS_V1 },
    change: { 'src/http/v1/users.ts': USERS_V1.replace('    email: u.email,', '    emailAddress: u.email,') },
    breaks: [{ file: 'src/http/v1/users.ts', at: '    emailAddress: u.email,', record: 'api' }],
  }),
  defineCase({
    id: 'api-optional-field',
    title: 'The v1 user response gains an avatar',
    note: 'Clean, though it changes a v1 response: the record allows a new optional field.',
    records: ['api'],
    base: { 'src/http/v1/users.ts': USERS_V1 },
    change: {
      'src/http/v1/users.ts': USERS_V1.replace(
        '    email: u.email,',
        '    email: u.email,\n    avatarUrl: u.avatarUrl ?? undefined,',
      ),
    },
  }),
  defineCase({
    id: 'api-v2-route',
    title: 'A v2 user route beside v1',
    note: 'Clean: the new shape ships as v2 and v1 stays.',
    records: ['api'],
    base: { 'src/http/v1/users.ts': USERS_V1 },
    change: {
      'src/http/v2/users.ts': code(
        "import { Router } from 'express';",
        "import { usersRepo } from '../../db/users';",
        '',
        'export const router = Router();',
        '',
        "router.get('/v2/users/:id', async (req, res) => {",
        '  const u = await usersRepo.find(req.params.id);',
        '  if (!u) return res.status(404).end();',
        '  res.json({ id: u.id, displayName: u.name, contact: { email: u.email } });',
        '});',
      ),
    },
  }),
  defineCase({
    id: 'config-env-in-payments',
    title: 'The payments module reads its key from process.env',
    note: "A breach in a file the record's scope (src/config/**) does not name.",
    records: ['config'],
    base: { ...COMMON.config, 'src/payments/stripe.ts': STRIPE },
    change: {
      'src/payments/stripe.ts': STRIPE.replace(
        'const stripe = new Stripe(config.STRIPE_SECRET_KEY);',
        "const stripe = new Stripe(process.env.STRIPE_RESTRICTED_KEY ?? config.STRIPE_SECRET_KEY, { apiVersion: '2024-06-20' });",
      ),
    },
    breaks: [{ file: 'src/payments/stripe.ts', at: 'process.env.STRIPE_RESTRICTED_KEY', record: 'config' }],
  }),
  defineCase({
    id: 'config-new-variable',
    title: 'A new setting for the mail server',
    note: 'Clean: the governed file gains a validated variable.',
    records: ['config'],
    base: COMMON.config,
    change: {
      'src/config/index.ts': COMMON.config['src/config/index.ts'].replace(
        '  LD_SDK_KEY: z.string().min(1),',
        '  LD_SDK_KEY: z.string().min(1),\n  SMTP_URL: z.string().url(),',
      ),
    },
  }),
  defineCase({
    id: 'flags-sdk-direct',
    title: 'The checkout banner asks LaunchDarkly itself',
    note: 'A flag read straight from the SDK, past src/flags.ts.',
    records: ['flags', 'config'],
    base: { ...COMMON.config, ...COMMON.flags, 'src/checkout/banner.ts': BANNER },
    change: {
      'src/checkout/banner.ts': code(
        "import type { Request, Response } from 'express';",
        "import { init } from '@launchdarkly/node-server-sdk';",
        "import { config } from '../config';",
        '',
        'const ld = init(config.LD_SDK_KEY);',
        '',
        'export async function banner(req: Request, res: Response): Promise<void> {',
        "  const winter = await ld.variation('winter-banner', { kind: 'user', key: String(req.query.user) }, false);",
        "  res.json({ text: winter ? 'Winter sale: 20% off' : 'Free shipping over 50 €' });",
        '}',
      ),
    },
    breaks: [
      {
        file: 'src/checkout/banner.ts',
        at: "import { init } from '@launchdarkly/node-server-sdk';",
        record: 'flags',
      },
    ],
  }),
  defineCase({
    id: 'flags-new-flag',
    title: 'The winter banner behind a declared flag',
    note: 'Clean: the flag is declared in src/flags.ts and read with isOn.',
    records: ['flags', 'config'],
    base: { ...COMMON.config, ...COMMON.flags, 'src/checkout/banner.ts': BANNER },
    change: {
      'src/flags.ts': COMMON.flags['src/flags.ts'].replace(
        "export type FlagName = 'new-checkout' | 'saved-carts';",
        "export type FlagName = 'new-checkout' | 'saved-carts' | 'winter-banner';",
      ),
      'src/checkout/banner.ts': code(
        "import type { Request, Response } from 'express';",
        "import { isOn } from '../flags';",
        '',
        'export async function banner(req: Request, res: Response): Promise<void> {',
        "  const winter = await isOn('winter-banner', { id: String(req.query.user) });",
        "  res.json({ text: winter ? 'Winter sale: 20% off' : 'Free shipping over 50 €' });",
        '}',
      ),
    },
  }),
];
