// Renders scripts/icon.svg to media/icon.png (128×128, transparent corners) in headless Chromium,
// the Marketplace icon. Run after editing it: `node scripts/makeIcon.mjs`.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { chromium } from 'playwright-core';

const root = path.resolve(import.meta.dirname, '..');
const svg = readFileSync(path.join(root, 'scripts', 'icon.svg'), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
  await page.setContent(`<!DOCTYPE html><html><body style="margin:0">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: path.join(root, 'media', 'icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
console.log('media/icon.png written');
