/**
 * The gate's rules on a path alone (no disk): version-control internals and secret-looking names,
 * in one list. Each rule says in a few words why, so a refusal is one line a person can act on.
 */

import { withoutInvisible } from '@roundtable/protocol';

/** Folders of version control internals: never sent, whatever they hold (a remote URL with a token). */
const VCS_DIRS: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  '.bzr',
  '_darcs',
  'cvs',
  '.jj',
  '.sl',
  '.pijul',
  '.fossil',
]);

/** True for a version-control folder name, in any case (`.GIT` is `.git` on a case-insensitive disk). */
export const isVcsDir = (name: string): boolean => VCS_DIRS.has(name.toLowerCase());

/** Copies an editor or a person leaves next to a file: `id_rsa.bak` is still a private key. */
const BACKUP_SUFFIX = /(\.(bak|old|orig|backup|save|swp|tmp|copy)|~)$/i;

/**
 * One rule per kind of secret: `name` is tried on the file name (its backup suffixes removed), `dir`
 * on the folders above it (lower-cased), so `.docker/config.json` matches and `src/config.json`
 * does not.
 */
interface NameRule {
  why: string;
  name?: RegExp;
  dir?: (dirs: string[], name: string) => boolean;
}

const has = (dirs: string[], d: string): boolean => dirs.includes(d);

export const SECRET_NAME_RULES: readonly NameRule[] = [
  {
    why: 'a private key',
    name: /^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.*\.(pem|key|p12|pfx|jks|keystore|kdbx|asc|gpg|ppk))$/i,
  },
  { why: "git's stored credentials", name: /^\.git-credentials$/i },
  { why: 'a docker registry login', dir: (d, n) => has(d, '.docker') && /^config\.json$/i.test(n) },
  { why: 'an npm, pip or PyPI token file', name: /^(\.npmrc|\.yarnrc(\.yml)?|pip\.conf|pip\.ini|\.pypirc)$/i },
  { why: 'a netrc login file', name: /^[._]netrc$/i },
  { why: 'ssh configuration or keys', dir: (d) => has(d, '.ssh') },
  {
    why: 'a cloud CLI credential',
    dir: (d, n) =>
      (has(d, '.aws') && /^(credentials|config)$/i.test(n)) ||
      has(d, '.azure') ||
      (has(d, 'gcloud') && /\.json$/i.test(n)),
  },
  { why: 'a cloud CLI credential', name: /^application_default_credentials\.json$/i },
  { why: 'a kubeconfig', name: /^kubeconfig(\..*)?$/i },
  { why: 'a kubeconfig', dir: (d, n) => has(d, '.kube') && /^config$/i.test(n) },
  { why: 'Terraform variables or state', name: /\.(tfvars|tfstate)(\.json|\.backup)?$/i },
  { why: 'a secrets file', name: /^secrets?(\..*)?$/i },
  { why: 'an environment file', name: /^\.env(rc)?(?!\.(example|sample)$)(\..*)?$/i },
  {
    why: 'a credentials file',
    name: /^(credentials(\.(json|ya?ml|toml|ini|xml|txt|csv|conf|cfg))?|service-account.*\.json)$/i,
  },
];

/**
 * Why `rel` (workspace-relative, `/`-separated) may never leave the machine by its name alone, or
 * undefined. A name is judged as it is and as it looks: `.e\u200bnv` (a zero-width space inside)
 * reads as `.env` to whoever opens it, so it is refused as one. `.gitconfig` is judged by its
 * content (see `gitconfigHoldsCredentials`).
 */
export function refusedByName(rel: string): string | undefined {
  const looks = withoutInvisible(rel);
  return refusedByExactName(rel) ?? (looks === rel ? undefined : refusedByExactName(looks));
}

function refusedByExactName(rel: string): string | undefined {
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  const vcs = parts.find(isVcsDir);
  if (vcs) return `is inside ${vcs} (version control internals)`;
  const file = parts[parts.length - 1] ?? '';
  let name = file;
  while (BACKUP_SUFFIX.test(name) && name.replace(BACKUP_SUFFIX, '') !== '') name = name.replace(BACKUP_SUFFIX, '');
  const dirs = parts.slice(0, -1).map((d) => d.toLowerCase());
  for (const r of SECRET_NAME_RULES)
    if ((r.name && (r.name.test(name) || r.name.test(file))) || r.dir?.(dirs, name.toLowerCase()))
      return `has a secret-looking name (${r.why})`;
  return undefined;
}

/** A `.gitconfig` that stores a password or a token (a URL with credentials, a `[credential]` store). */
export function gitconfigHoldsCredentials(rel: string, text: string): boolean {
  if (!/(^|\/)\.?gitconfig$/i.test(rel)) return false;
  return /:\/\/[^\s/:@]+:[^\s/@]+@|^\s*(password|token|oauth[_-]?token)\s*=|\[credential\b[^\]]*\][^[]*helper\s*=\s*store/im.test(
    text,
  );
}
